import { GoondanError, openToolProcessTree, type ToolProcessTree } from '@goondan/core';
import { scrubEnvironment } from '../../src/scrub-environment.ts';
import { completeUtf8Length, concatBytes, decodeUtf8Lenient } from '../../src/utf8.ts';

/** What a finished (or stopped) command reports. A non-zero exit is data, not an error. */
export interface ProcessResult {
  /** Exit status; null when the process was ended by a signal (e.g. on timeout). */
  exitCode: number | null;
  /** Name of the signal that ended the process (e.g. 'SIGKILL'), or null. */
  signal: string | null;
  stdout: string;
  stderr: string;
  /** True when stdout or stderr went over its cap; the head is kept. */
  truncated: boolean;
  /** True when the command ran past its timeout and its process group was killed. */
  timedOut: boolean;
  durationMs: number;
}

export interface RunOptions {
  argv: string[];
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
  /** Cap per stream, in bytes. */
  maxOutputBytes: number;
}

/** How long to keep reading pipes after the process group is gone (a process that left the group may hold them). */
const drainGraceMs = 250;

/** Reads a whole stream, keeping the first `cap` bytes and counting the rest, so the child never blocks on a pipe. */
async function collect(stream: ReadableStream<Uint8Array>, cap: number, stop: Promise<void>) {
  const chunks: Uint8Array[] = [];
  let kept = 0;
  let total = 0;
  const reader = stream.getReader();
  const stopped = stop.then(() => 'stopped' as const);
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), stopped]);
      if (next === 'stopped') {
        await reader.cancel().catch(() => {});
        break;
      }
      if (next.done) break;
      const chunk = next.value;
      total += chunk.length;
      if (kept < cap) {
        const part = chunk.length <= cap - kept ? chunk : chunk.subarray(0, cap - kept);
        chunks.push(part);
        kept += part.length;
      }
    }
  } catch {
    // A pipe closed under us: keep what was read.
  } finally {
    reader.releaseLock();
  }
  const head = concatBytes(chunks, kept);
  const truncated = total > kept;
  return { text: decodeUtf8Lenient(truncated ? head.subarray(0, completeUtf8Length(head)) : head), truncated };
}

/** Sends SIGKILL to the whole process group led by `pid`; quiet when the group is already gone. */
export function killProcessGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: nothing left in the group.
  }
}

/**
 * Runs a command in its own process group (setsid), with cwd = the workdir and a scrubbed environment.
 * On timeout or abort the whole group is killed (grandchildren included); when the command exits normally,
 * whatever it left running is killed too, so nothing outlives the call: its group, and every process marked as
 * part of its tree (those that left the group with setsid). If the runtime dies first, its process guard kills
 * the tree (docs/security.md#process-trees).
 */
export async function runProcess(options: RunOptions): Promise<ProcessResult> {
  const { argv, cwd, timeoutMs, signal, maxOutputBytes } = options;
  if (signal.aborted) throw new GoondanError('E_TOOL_ABORTED', 'The command was cancelled before it started.');
  const started = performance.now();
  let child: ReturnType<typeof spawnChild>;
  const tree = openToolProcessTree();
  try {
    child = spawnChild(argv, cwd, tree);
  } catch (thrown) {
    throw new GoondanError('E_BASH_SPAWN', `Could not start '${argv[0]}': ${(thrown as Error).message}`, {
      cause: thrown,
    });
  }
  let timedOut = false;
  let aborted = false;
  const stop = Promise.withResolvers<void>();
  const kill = () => {
    // The tree first, while its processes still live: those that left the group (setsid, double fork) carry its
    // marker, and one that also cleared its environment is found through its parent, which the group's SIGKILL
    // would end first. Then the group, for a leader caught before its environment shows in /proc.
    tree.kill();
    killProcessGroup(child.pid);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, timeoutMs);
  const onAbort = () => {
    aborted = true;
    kill();
  };
  signal.addEventListener('abort', onAbort, { once: true });
  const stdout = collect(child.stdout, maxOutputBytes, stop.promise);
  const stderr = collect(child.stderr, maxOutputBytes, stop.promise);
  try {
    await child.exited;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    // The leader is gone; end the rest of its tree so background jobs do not outlive the call.
    kill();
  }
  const grace = setTimeout(() => stop.resolve(), drainGraceMs);
  const [out, err] = await Promise.all([stdout, stderr]);
  clearTimeout(grace);
  if (aborted && !timedOut) {
    throw new GoondanError('E_TOOL_ABORTED', 'The command was cancelled; its process group was killed.');
  }
  return {
    exitCode: child.exitCode,
    signal: child.signalCode === null || child.signalCode === undefined ? null : String(child.signalCode),
    stdout: out.text,
    stderr: err.text,
    truncated: out.truncated || err.truncated,
    timedOut,
    durationMs: Math.round(performance.now() - started),
  };
}

function spawnChild(argv: string[], cwd: string, tree: ToolProcessTree) {
  return Bun.spawn(argv, {
    cwd,
    env: { ...scrubEnvironment(process.env), PWD: cwd, ...tree.variables },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    detached: true,
  });
}
