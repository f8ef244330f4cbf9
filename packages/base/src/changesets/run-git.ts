import { existsSync } from 'node:fs';
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
    // Bun says ENOENT both for no git on PATH and for a directory to run in that is gone (a deleted worktree).
    if (!existsSync(options.cwd))
      throw new GoondanError(
        'E_CHANGESET_FAILED',
        `Could not run git in ${options.cwd}: that directory does not exist.`,
      );
    const said = (thrown as Error)?.message ?? String(thrown);
    throw new GoondanError(
      'E_CHANGESET_FAILED',
      `Could not run git: ${said}`,
      (thrown as NodeJS.ErrnoException)?.code === 'ENOENT'
        ? { suggestion: 'Install git (2.38 or later) and make sure it is on PATH.' }
        : {},
    );
  }
  const [stdout, stderr] = await Promise.all([
    new Response(proc.stdout as ReadableStream).text(),
    new Response(proc.stderr as ReadableStream).text(),
  ]);
  return { exitCode: await proc.exited, stdout, stderr };
}

/**
 * What git said, in one line: its `fatal:` / `error:` lines (the ones that name the file or ref), else its last
 * lines; the advice git prints after them is left out.
 */
export function gitSaid(output: GitOutput): string {
  const lines = (output.stderr || output.stdout)
    .trim()
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const errors = lines.filter((line) => /^(fatal|error):/.test(line));
  return (errors.length > 0 ? errors : lines).slice(-3).join(' ');
}

/**
 * What to do about a git failure when git's words say it: a lock file left by a git process that was killed
 * (kill -9 leaves it; git removes its own on any other signal). Undefined otherwise.
 */
export function gitFailureHint(output: GitOutput): string | undefined {
  const lock = /Unable to create '([^']+\.lock)': File exists/.exec(output.stderr)?.[1];
  if (lock === undefined) return undefined;
  return `If no git process is running in this repository (one killed with kill -9 leaves its lock behind), remove ${lock}`;
}

/** Runs git and returns its trimmed stdout; a non-zero exit is E_CHANGESET_FAILED quoting git. */
export async function git(options: { cwd: string; args: string[]; env?: Record<string, string> }): Promise<string> {
  const output = await runGit(options);
  if (output.exitCode !== 0) {
    const hint = gitFailureHint(output);
    throw new GoondanError(
      'E_CHANGESET_FAILED',
      `git ${options.args[0]} failed: ${gitSaid(output)}`,
      hint ? { suggestion: hint } : {},
    );
  }
  return output.stdout.trim();
}
