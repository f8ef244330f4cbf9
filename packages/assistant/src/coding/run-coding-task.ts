import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { firstCommand, GoondanError, type JsonObject, type PendingSubmission, type ToolContext } from '@goondan/core';
import { type GitRepository, gitOutput, openGitRepository } from '../git/git-repository.ts';
import { runCodingCli } from './run-coding-cli.ts';

const DEFAULT_TIMEOUT_MINUTES = 30;
const SUMMARY_CHARS = 4000;

/** What a finished task reports (the `tool.job.completed` event carries it to the agent). */
export interface CodingTaskResult extends JsonObject {
  /** The branch holding the work; null when the CLI changed nothing (the empty branch is deleted). */
  branch: string | null;
  base: string;
  repository: string;
  exitCode: number | null;
  timedOut: boolean;
  /** The end of what the CLI printed, where coding CLIs put their summary. */
  summary: string;
  stderr: string;
  /** `git diff --stat` of base..branch, and its last line in numbers. */
  diffStat: string;
  filesChanged: number;
  insertions: number;
  deletions: number;
  /** Commits on the branch since base (the CLI's own, plus one for what it left uncommitted). */
  commits: number;
  durationMs: number;
}

/** The CLI's argv: `config.args` with {task}, {worktree} and {branch} filled in; without {task}, the task is stdin. */
export function codingArgv(config: Readonly<JsonObject>, values: { task: string; worktree: string; branch: string }) {
  const command = typeof config.command === 'string' ? config.command : '';
  if (command.trim() === '') {
    throw new GoondanError('E_CODING_FAILED', 'The coding Tool has no config.command (the coding CLI to run).');
  }
  const template = Array.isArray(config.args) ? config.args.map(String) : ['{task}'];
  const argv = [
    command,
    ...template.map((arg) => arg.replace(/\{(task|worktree|branch)\}/g, (_, key: keyof typeof values) => values[key])),
  ];
  return { argv, stdin: template.some((arg) => arg.includes('{task}')) ? undefined : values.task };
}

function shortstat(text: string) {
  const number = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
  return {
    filesChanged: number(/(\d+) files? changed/),
    insertions: number(/(\d+) insertions?\(\+\)/),
    deletions: number(/(\d+) deletions?\(-\)/),
  };
}

/**
 * coding__run_task: the configured coding CLI on `task`, in a fresh git worktree (branch `<prefix><id>`, from the
 * repository's HEAD) beside the workdir, so the person's checkout is never touched. Answers `pending` at once; when
 * the CLI exits, what it left uncommitted is committed on the branch, the worktree is removed (the branch stays) and
 * the result (exit code, summary, diff stat, branch) reaches the agent as the job's completion event.
 */
export async function startCodingTask(
  ctx: ToolContext,
  input: { task: string; working_directory?: string },
): Promise<PendingSubmission> {
  const command = String(ctx.config.command ?? '');
  if (!(command.startsWith('/') ? await Bun.file(command).exists() : firstCommand(command))) {
    throw new GoondanError(
      'E_CODING_FAILED',
      `The coding CLI '${command}' is not installed here (not found on PATH).`,
      {
        suggestion: "Install it, or set the coding Tool's config.command to its name or absolute path.",
      },
    );
  }
  const repo = await openGitRepository(ctx, input.working_directory);
  const head = await repo.git(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  if (head.exitCode !== 0 || head.stdout.trim() === '') {
    throw new GoondanError(
      'E_CODING_FAILED',
      `The repository '${repo.name}' has no commit yet to start a worktree from.`,
      {
        suggestion: 'Commit something first (git__commit), then run the task again.',
      },
    );
  }
  const base = head.stdout.trim();
  const id = randomBytes(4).toString('hex');
  const prefix = typeof ctx.config.branchPrefix === 'string' ? ctx.config.branchPrefix : 'goondan/coding-';
  const branch = `${prefix}${id}`;
  // Beside the workdir, not in it: the repository's own status stays clean, and no workdir tool reaches the tree.
  const worktree = join(dirname(ctx.workdir), `${basename(ctx.workdir)}.coding`, id);
  await mkdir(dirname(worktree), { recursive: true });
  gitOutput(await repo.git(['worktree', 'add', '--quiet', '-b', branch, worktree, base]), 'worktree add');
  const { argv, stdin } = codingArgv(ctx.config, { task: input.task, worktree, branch });
  const minutes = typeof ctx.config.timeoutMinutes === 'number' ? ctx.config.timeoutMinutes : DEFAULT_TIMEOUT_MINUTES;
  const passEnv = Array.isArray(ctx.config.env) ? ctx.config.env.map(String) : [];
  return ctx.jobs.submit(async (signal) => {
    try {
      const run = await runCodingCli({
        argv,
        cwd: worktree,
        passEnv,
        ...(stdin === undefined ? {} : { input: stdin }),
        timeoutMs: minutes * 60_000,
        signal,
        tailChars: SUMMARY_CHARS,
      });
      await commitLeftovers(repo, worktree, input.task, ctx.config);
      const stat = gitOutput(await repo.git(['diff', '--stat=100', `${base}..${branch}`]), 'diff --stat').trimEnd();
      const commits = Number(
        gitOutput(await repo.git(['rev-list', '--count', `${base}..${branch}`]), 'rev-list').trim(),
      );
      const result: CodingTaskResult = {
        branch: commits > 0 ? branch : null,
        base,
        repository: repo.name,
        exitCode: run.exitCode,
        timedOut: run.timedOut,
        summary: run.stdoutTail.trim(),
        stderr: run.stderrTail.trim(),
        diffStat: stat,
        ...shortstat(stat.split('\n').at(-1) ?? ''),
        commits,
        durationMs: run.durationMs,
      };
      return result;
    } finally {
      await repo.git(['worktree', 'remove', '--force', worktree]).catch(() => null);
      await rm(worktree, { recursive: true, force: true });
      await repo.git(['worktree', 'prune']).catch(() => null);
      // A branch with nothing on it (no change, or a task cancelled early) is not kept.
      const count = await repo.git(['rev-list', '--count', `${base}..refs/heads/${branch}`]).catch(() => null);
      if (count?.exitCode === 0 && count.stdout.trim() === '0')
        await repo.git(['branch', '-D', branch]).catch(() => null);
    }
  });
}

/** Commits what the CLI changed but did not commit, so the branch holds the whole result. */
async function commitLeftovers(repo: GitRepository, worktree: string, task: string, config: Readonly<JsonObject>) {
  const inTree = (args: string[]) => repo.git(['-C', worktree, ...args]);
  gitOutput(await inTree(['add', '--all']), 'add');
  const staged = await inTree(['diff', '--cached', '--quiet']);
  if (staged.exitCode === 0) return;
  const name = typeof config.authorName === 'string' ? config.authorName : 'Goondan coding agent';
  const email = typeof config.authorEmail === 'string' ? config.authorEmail : 'coding@goondan.invalid';
  const subject = `coding: ${task.split('\n')[0]!.slice(0, 72)}`;
  gitOutput(
    await repo.git([
      '-C',
      worktree,
      '-c',
      `user.name=${name}`,
      '-c',
      `user.email=${email}`,
      'commit',
      '--quiet',
      '--no-verify',
      '-m',
      subject,
    ]),
    'commit',
  );
}
