import { scrubEnvironment } from '@goondan/base';
import { GoondanError } from '@goondan/core/errors';

/** What one git command printed; stdout is cut at the cap. */
export interface GitRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  truncated: boolean;
}

/** Bytes of stdout kept (a diff of a big change is cut here, and the process stopped). */
export const MAX_GIT_OUTPUT_BYTES = 256 * 1024;
const MAX_STDERR_BYTES = 16 * 1024;
const GIT_TIMEOUT_MS = 30_000;

/**
 * Settings that keep a repository we did not create from running anything: no hooks, no fsmonitor daemon, no
 * pager, no signing or signature checks (gpg), no network (protocol.allow), no editor, no submodule recursion, no
 * automatic gc. Filter drivers (clean/smudge) are named per repository (neutralFilters); external diff and
 * textconv are turned off per command (--no-ext-diff, --no-textconv).
 */
export const GIT_HARDENING = [
  '--no-pager',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.pager=cat',
  '-c',
  'core.editor=false',
  '-c',
  'core.sshCommand=false',
  '-c',
  'core.askPass=',
  '-c',
  'credential.helper=',
  '-c',
  'protocol.allow=never',
  '-c',
  'commit.gpgSign=false',
  '-c',
  'tag.gpgSign=false',
  '-c',
  'log.showSignature=false',
  '-c',
  'gpg.program=false',
  '-c',
  'diff.external=',
  '-c',
  'submodule.recurse=false',
  '-c',
  'diff.ignoreSubmodules=all',
  '-c',
  'status.submoduleSummary=false',
  '-c',
  'gc.auto=0',
  '-c',
  'maintenance.auto=false',
  '-c',
  'color.ui=false',
];

// Variables that would point git at another repository, config, index or object store than the one we name.
const redirecting =
  /^GIT_(DIR|WORK_TREE|INDEX_FILE|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES|COMMON_DIR|CONFIG|CONFIG_PARAMETERS|CONFIG_COUNT|CONFIG_KEY_\d+|CONFIG_VALUE_\d+|EXTERNAL_DIFF|PAGER|EDITOR|SSH|SSH_COMMAND|ASKPASS|EXEC_PATH|NAMESPACE|CEILING_DIRECTORIES|DISCOVERY_ACROSS_FILESYSTEM|TRACE\w*)$/;

function gitEnvironment(ceiling: string | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(scrubEnvironment(process.env))) {
    if (value !== undefined && !redirecting.test(key)) env[key] = value;
  }
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    GIT_EDITOR: 'false',
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
    LC_ALL: 'C',
    ...(ceiling ? { GIT_CEILING_DIRECTORIES: ceiling } : {}),
  };
}

async function readCapped(stream: ReadableStream<Uint8Array>, cap: number, onOver: () => void) {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let kept = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (kept + value.byteLength > cap) {
      chunks.push(value.subarray(0, cap - kept));
      kept = cap;
      truncated = true;
      onOver();
      await reader.cancel().catch(() => {});
      break;
    }
    chunks.push(value);
    kept += value.byteLength;
  }
  // A multi-byte character cut at the cap is dropped rather than shown broken.
  const text = new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks));
  return { text: truncated ? text.replace(/\uFFFD+$/, '') : text, truncated };
}

/**
 * Runs git in `cwd` with the hardening above, a scrubbed environment (no API keys), no prompt, a 30 s limit and
 * stdout capped (the process is killed past the cap). `ceiling`: discovery does not look above it.
 */
export async function runHardenedGit(options: {
  cwd: string;
  args: string[];
  extraConfig?: string[];
  ceiling?: string;
  signal?: AbortSignal;
  maxBytes?: number;
}): Promise<GitRun> {
  let proc: ReturnType<typeof Bun.spawn>;
  try {
    proc = Bun.spawn(['git', ...GIT_HARDENING, ...(options.extraConfig ?? []), ...options.args], {
      cwd: options.cwd,
      env: gitEnvironment(options.ceiling),
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
      timeout: GIT_TIMEOUT_MS,
      killSignal: 'SIGKILL',
      signal: options.signal,
    });
  } catch (thrown) {
    throw new GoondanError('E_TOOL_UNAVAILABLE', `git could not be started: ${(thrown as Error)?.message ?? thrown}`, {
      suggestion: 'Install git (Debian: apt-get install git) and make sure it is on PATH.',
    });
  }
  const kill = () => proc.kill('SIGKILL');
  const [out, err] = await Promise.all([
    readCapped(proc.stdout as ReadableStream<Uint8Array>, options.maxBytes ?? MAX_GIT_OUTPUT_BYTES, kill),
    readCapped(proc.stderr as ReadableStream<Uint8Array>, MAX_STDERR_BYTES, () => {}),
  ]);
  const exitCode = await proc.exited;
  if (options.signal?.aborted) throw new GoondanError('E_TOOL_ABORTED', 'The git command was cancelled.');
  return { exitCode: out.truncated ? 0 : exitCode, stdout: out.text, stderr: err.text, truncated: out.truncated };
}
