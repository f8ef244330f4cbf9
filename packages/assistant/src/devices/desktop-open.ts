import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { resolveInsideWorkdir } from '@goondan/base';
import { GoondanError } from '@goondan/core/errors';
import { deviceEnvironment } from './run-device-command.ts';

/** How long an opener may take to hand over before it is left running (xdg-open can wait for the program it starts). */
const HANDOVER_MS = 3_000;
const MAX_URL_LENGTH = 4096;

/**
 * Starts the desktop's opener (`open` on macOS, `xdg-open` elsewhere) on one argument, without a shell. An opener
 * that fails at once is E_DEVICE_FAILED with its words; one still running after the hand-over time is left to run
 * (it is showing what it opened) and counts as done.
 */
export async function runOpener(args: string[]): Promise<void> {
  const command = process.platform === 'darwin' ? 'open' : 'xdg-open';
  let proc: ReturnType<typeof Bun.spawn>;
  try {
    proc = Bun.spawn([command, ...args], {
      env: deviceEnvironment(),
      stdin: 'ignore',
      stdout: 'ignore',
      stderr: 'pipe',
    });
  } catch (thrown) {
    throw new GoondanError(
      'E_DEVICE_FAILED',
      `${command} could not be started: ${(thrown as Error)?.message ?? thrown}`,
    );
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const handedOver = new Promise<'running'>((resolve) => {
    timer = setTimeout(() => resolve('running'), HANDOVER_MS);
  });
  const outcome = await Promise.race([proc.exited, handedOver]);
  clearTimeout(timer);
  if (outcome === 'running') {
    proc.unref();
    return;
  }
  if (outcome !== 0) {
    const said = (await new Response(proc.stderr as ReadableStream).text()).trim().slice(0, 500);
    throw new GoondanError('E_DEVICE_FAILED', `${command} failed (exit ${outcome})${said ? `: ${said}` : ''}`);
  }
}

/** An http(s) URL as the opener gets it; anything else (file:, javascript:, a custom scheme) is refused. */
export function checkWebUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new GoondanError('E_HTTP_INVALID_URL', `'${text.slice(0, 200)}' is not a URL.`, {
      suggestion: 'Give a full address starting with https:// or http://.',
    });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new GoondanError(
      'E_HTTP_INVALID_URL',
      `Only http and https addresses are opened, not ${url.protocol} ones.`,
      {
        suggestion: 'Give a web address (https://…); files are shown with finder__reveal.',
      },
    );
  }
  if (url.href.length > MAX_URL_LENGTH) {
    throw new GoondanError(
      'E_HTTP_INVALID_URL',
      `The URL is ${url.href.length} characters; at most ${MAX_URL_LENGTH} are opened.`,
    );
  }
  return url.href;
}

/**
 * Shows a file or folder of the workdir in the file manager: macOS selects it in Finder (`open -R`); elsewhere the
 * opener shows its folder (a folder itself is opened). Paths outside the workdir are refused.
 */
export async function reveal(workdir: string, path: string): Promise<{ revealed: string; shown: string }> {
  const resolved = await resolveInsideWorkdir(workdir, path);
  if (!resolved.exists)
    throw new GoondanError('E_FILE_NOT_FOUND', `'${resolved.relativePath}' does not exist in the workdir.`);
  if (process.platform === 'darwin') {
    await runOpener(['-R', resolved.realPath]);
    return { revealed: resolved.relativePath, shown: resolved.realPath };
  }
  const folder = (await stat(resolved.realPath)).isDirectory() ? resolved.realPath : dirname(resolved.realPath);
  await runOpener([folder]);
  return { revealed: resolved.relativePath, shown: folder };
}
