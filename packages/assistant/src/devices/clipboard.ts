import { firstCommand, GoondanError } from '@goondan/core';
import { runDeviceCommandOk } from './run-device-command.ts';

/** The sources whose turns may read the clipboard by default: people at this machine's keyboard. */
export const DEFAULT_CLIPBOARD_READ_SOURCES = ['user:cli', 'user:chat'];

interface ClipboardCommands {
  read: [string, ...string[]];
  write: [string, ...string[]];
}

/**
 * The clipboard helpers of this session: pbpaste/pbcopy on macOS; on Linux wl-paste/wl-copy under Wayland, else
 * xsel under X11 (spec.requires has already made sure one of them is here).
 */
export function clipboardCommands(): ClipboardCommands {
  if (process.platform === 'darwin') return { read: ['pbpaste'], write: ['pbcopy'] };
  if (process.env.WAYLAND_DISPLAY && firstCommand('wl-paste') && firstCommand('wl-copy')) {
    return { read: ['wl-paste', '--no-newline'], write: ['wl-copy'] };
  }
  if (process.env.DISPLAY && firstCommand('xsel')) {
    return { read: ['xsel', '--clipboard', '--output'], write: ['xsel', '--clipboard', '--input'] };
  }
  throw new GoondanError(
    'E_DEVICE_FAILED',
    'No clipboard helper for this session (xsel with DISPLAY, or wl-clipboard with WAYLAND_DISPLAY).',
    {
      suggestion: 'Install xsel (X11) or wl-clipboard (Wayland), and run inside the desktop session.',
    },
  );
}

/**
 * Whether a turn from `source` may read the clipboard: what is copied on this machine (a password, a private
 * message) must not reach a chat on another device. `allowed`: `kind`, `kind:name` or `*` (config.readSources).
 */
export function mayReadClipboard(
  source: { kind: string; name: string } | undefined,
  allowed: readonly string[],
): boolean {
  if (allowed.includes('*')) return true;
  if (!source) return false;
  return allowed.includes(source.kind) || allowed.includes(`${source.kind}:${source.name}`);
}

export async function readClipboard(options: { maxChars: number; signal?: AbortSignal }) {
  const [command, ...args] = clipboardCommands().read;
  const text = await runDeviceCommandOk(command, args, options.signal ? { signal: options.signal } : {});
  const truncated = text.length > options.maxChars;
  return { text: truncated ? text.slice(0, options.maxChars) : text, length: text.length, truncated };
}

export async function writeClipboard(text: string, signal?: AbortSignal) {
  const [command, ...args] = clipboardCommands().write;
  await runDeviceCommandOk(command, args, { input: text, ...(signal ? { signal } : {}) });
  return { written: text.length };
}
