import { scrubEnvironment } from '@goondan/base/scrub-environment';
import { GoondanError } from '@goondan/core/errors';

/** What a desktop helper (playerctl, xsel, xdg-open, osascript…) printed; stdout is cut at the cap. */
export interface DeviceRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

const MAX_STDOUT_BYTES = 1024 * 1024;
const MAX_STDERR_BYTES = 8 * 1024;
const DEFAULT_TIMEOUT_MS = 10_000;

/** The session's display and bus: kept even where the secret scrubber would drop them (a bus guid looks random). */
const SESSION_VARIABLES = ['DISPLAY', 'WAYLAND_DISPLAY', 'XAUTHORITY', 'DBUS_SESSION_BUS_ADDRESS', 'XDG_RUNTIME_DIR'];

/** The environment of a desktop helper: no API keys, but the display and the session bus. */
export function deviceEnvironment(): Record<string, string> {
  const env = scrubEnvironment(process.env);
  for (const name of SESSION_VARIABLES) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

async function readCapped(stream: ReadableStream<Uint8Array>, cap: number): Promise<string> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let kept = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (kept < cap) chunks.push(value.subarray(0, cap - kept));
    kept += value.byteLength;
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/**
 * Runs a desktop helper without a shell (arguments are never parsed), with the scrubbed session environment, an
 * optional stdin text, a time limit (the process is killed) and capped output. A helper that cannot start is
 * E_DEVICE_FAILED naming it; the exit code is the caller's to judge.
 */
export async function runDeviceCommand(
  command: string,
  args: readonly string[],
  options: { input?: string; signal?: AbortSignal; timeoutMs?: number; cwd?: string } = {},
): Promise<DeviceRun> {
  let proc: ReturnType<typeof Bun.spawn>;
  try {
    proc = Bun.spawn([command, ...args], {
      env: deviceEnvironment(),
      ...(options.cwd ? { cwd: options.cwd } : {}),
      stdin: options.input === undefined ? 'ignore' : new TextEncoder().encode(options.input),
      stdout: 'pipe',
      stderr: 'pipe',
      timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      killSignal: 'SIGKILL',
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (thrown) {
    throw new GoondanError(
      'E_DEVICE_FAILED',
      `${command} could not be started: ${(thrown as Error)?.message ?? thrown}`,
    );
  }
  const [stdout, stderr] = await Promise.all([
    readCapped(proc.stdout as ReadableStream<Uint8Array>, MAX_STDOUT_BYTES),
    readCapped(proc.stderr as ReadableStream<Uint8Array>, MAX_STDERR_BYTES),
  ]);
  const exitCode = await proc.exited;
  if (options.signal?.aborted) throw new GoondanError('E_TOOL_ABORTED', `${command} was cancelled.`);
  if (proc.signalCode === 'SIGKILL') {
    throw new GoondanError(
      'E_DEVICE_FAILED',
      `${command} did not finish within ${options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms.`,
    );
  }
  return { exitCode, stdout, stderr: stderr.trim() };
}

/** Runs the helper and fails with E_DEVICE_FAILED (its own words) unless it exits 0. */
export async function runDeviceCommandOk(
  command: string,
  args: readonly string[],
  options: Parameters<typeof runDeviceCommand>[2] = {},
): Promise<string> {
  const run = await runDeviceCommand(command, args, options);
  if (run.exitCode !== 0) {
    throw new GoondanError(
      'E_DEVICE_FAILED',
      `${command} ${args[0] ?? ''} failed (exit ${run.exitCode})${run.stderr ? `: ${run.stderr.slice(0, 500)}` : ''}`,
    );
  }
  return run.stdout;
}
