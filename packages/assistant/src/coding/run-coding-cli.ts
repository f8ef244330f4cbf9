import { scrubEnvironment } from '@goondan/base/scrub-environment';
import { GoondanError, openToolProcessTree } from '@goondan/core';

export interface CodingCliRun {
  exitCode: number | null;
  timedOut: boolean;
  /** The end of what the CLI printed (its summary is usually last), at most `tailChars`. */
  stdoutTail: string;
  stderrTail: string;
  durationMs: number;
}

/** Reads a stream to its end, keeping only its last `keep` characters (a CLI can print megabytes of progress). */
async function tail(stream: ReadableStream<Uint8Array>, keep: number): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  try {
    for await (const chunk of stream) {
      text += decoder.decode(chunk, { stream: true });
      if (text.length > keep * 2) text = text.slice(-keep);
    }
  } catch {
    // The pipe closed under us (the group was killed): keep what was read.
  }
  return text.slice(-keep);
}

/**
 * Runs the coding CLI in `cwd` (the task's worktree) in a process group of its own, its environment scrubbed of
 * secrets except the variables `passEnv` names (its own API key), stdin = `input` or nothing. On timeout or when
 * `signal` fires the whole group is killed, and whatever it left running is killed when it exits; the process tree
 * marker reaches processes that left the group (docs/security.md#process-trees).
 */
export async function runCodingCli(options: {
  argv: string[];
  cwd: string;
  passEnv: readonly string[];
  input?: string;
  timeoutMs: number;
  signal: AbortSignal;
  tailChars: number;
}): Promise<CodingCliRun> {
  const started = performance.now();
  const tree = openToolProcessTree();
  const passed = Object.fromEntries(
    options.passEnv.flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]!]])),
  );
  let child: ReturnType<typeof Bun.spawn>;
  try {
    child = Bun.spawn(options.argv, {
      cwd: options.cwd,
      env: { ...scrubEnvironment(process.env), ...passed, PWD: options.cwd, ...tree.variables },
      stdin: options.input === undefined ? 'ignore' : new TextEncoder().encode(options.input),
      stdout: 'pipe',
      stderr: 'pipe',
      detached: true,
    });
  } catch (thrown) {
    throw new GoondanError(
      'E_CODING_FAILED',
      `The coding CLI '${options.argv[0]}' could not be started: ${(thrown as Error).message}`,
    );
  }
  let timedOut = false;
  const kill = () => {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // The group is gone already.
    }
    tree.kill();
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, options.timeoutMs);
  const onAbort = () => kill();
  options.signal.addEventListener('abort', onAbort, { once: true });
  const stdout = tail(child.stdout as ReadableStream<Uint8Array>, options.tailChars);
  const stderr = tail(child.stderr as ReadableStream<Uint8Array>, options.tailChars);
  try {
    await child.exited;
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', onAbort);
    kill();
  }
  const [stdoutTail, stderrTail] = await Promise.all([stdout, stderr]);
  if (options.signal.aborted)
    throw new GoondanError('E_TOOL_ABORTED', 'The coding task was cancelled; its CLI was stopped.');
  return {
    exitCode: child.exitCode,
    timedOut,
    stdoutTail,
    stderrTail,
    durationMs: Math.round(performance.now() - started),
  };
}
