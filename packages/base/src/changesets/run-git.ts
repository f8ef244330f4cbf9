import { GoondanError } from '@goondan/core/errors';

/** What one git command printed. */
export interface GitOutput {
  exitCode: number;
  stdout: string;
  stderr: string;
}

// The bundle's repository may come from anywhere: no hooks, no fsmonitor daemon, no signing prompts.
const hardening = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'commit.gpgSign=false'];
// Variables that would point git at another repository, index or object store than the one we name.
const redirecting = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_COMMON_DIR'];

/** Runs the git CLI in `cwd`, hardened for repositories we did not create; never prompts. */
export async function runGit(options: {
  cwd: string;
  args: string[];
  env?: Record<string, string>;
}): Promise<GitOutput> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !redirecting.includes(key)) env[key] = value;
  }
  Object.assign(env, { GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' }, options.env ?? {});
  let proc: ReturnType<typeof Bun.spawn>;
  try {
    proc = Bun.spawn(['git', ...hardening, ...options.args], {
      cwd: options.cwd,
      env,
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
    });
  } catch (thrown) {
    throw new GoondanError('E_CHANGESET_FAILED', `Could not run git: ${(thrown as Error)?.message ?? thrown}`, {
      suggestion: 'Install git (2.38 or later) and make sure it is on PATH.',
    });
  }
  const [stdout, stderr] = await Promise.all([
    new Response(proc.stdout as ReadableStream).text(),
    new Response(proc.stderr as ReadableStream).text(),
  ]);
  return { exitCode: await proc.exited, stdout, stderr };
}

/** Runs git and returns its trimmed stdout; a non-zero exit is E_CHANGESET_FAILED quoting git. */
export async function git(options: { cwd: string; args: string[]; env?: Record<string, string> }): Promise<string> {
  const output = await runGit(options);
  if (output.exitCode !== 0) {
    const said = (output.stderr || output.stdout).trim().split('\n').slice(-3).join(' ');
    throw new GoondanError('E_CHANGESET_FAILED', `git ${options.args[0]} failed: ${said}`);
  }
  return output.stdout.trim();
}
