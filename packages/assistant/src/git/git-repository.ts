import { realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, sep } from 'node:path';
import { resolveInsideWorkdir } from '@goondan/base';
import type { ToolContext } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';
import { type GitRun, runHardenedGit } from './hardened-git.ts';

/** A repository inside the workdir that a git tool works on, and the part of it the call names. */
export interface GitRepository {
  /** Absolute top-level directory. */
  top: string;
  /** The top relative to the workdir (`.` when the workdir is the repository). */
  name: string;
  /** The path given, relative to the top; null for the whole repository. */
  pathspec: string | null;
  /** Runs git at the top with the hardening and this repository's filter drivers turned off. */
  git(args: string[], options?: { maxBytes?: number }): Promise<GitRun>;
}

function inside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** `-c filter.NAME.clean=` … for every filter driver the repository's config names: none of them runs. */
async function neutralFilters(top: string, ceiling: string): Promise<string[]> {
  const found = await runHardenedGit({
    cwd: top,
    ceiling,
    args: ['config', '--name-only', '--get-regexp', '^filter\\.'],
  });
  const names = new Set<string>();
  for (const line of found.stdout.split('\n')) {
    const match = /^filter\.(.+)\.[^.]+$/.exec(line.trim());
    if (match?.[1]) names.add(match[1]);
  }
  return [...names].flatMap((name) =>
    ['clean', 'smudge', 'process']
      .flatMap((key) => ['-c', `filter.${name}.${key}=`])
      .concat(['-c', `filter.${name}.required=false`]),
  );
}

/**
 * The repository holding `path` (default the workdir), confined: the path must be inside the workdir
 * (E_PATH_OUTSIDE_WORKDIR), discovery does not look above the workdir, and a repository whose top lies outside it
 * (core.worktree pointing elsewhere), or whose git directory does (a `.git` file naming another repository's, a
 * worktree of a repository outside), is refused. E_GIT_NOT_REPOSITORY when there is none.
 */
export async function openGitRepository(ctx: ToolContext, path: string | undefined): Promise<GitRepository> {
  const resolved = await resolveInsideWorkdir(ctx.workdir, path ?? '.');
  if (!resolved.exists) {
    throw new GoondanError('E_FILE_NOT_FOUND', `'${resolved.relativePath}' does not exist in the workdir.`);
  }
  const isDirectory = (await stat(resolved.realPath)).isDirectory();
  const cwd = isDirectory ? resolved.realPath : dirname(resolved.realPath);
  const ceiling = dirname(resolved.workdir);
  const found = await runHardenedGit({ cwd, ceiling, args: ['rev-parse', '--show-toplevel'], signal: ctx.signal });
  const notRepository = (why: string) =>
    new GoondanError('E_GIT_NOT_REPOSITORY', `'${resolved.relativePath}' is not inside a git repository${why}.`);
  if (found.exitCode !== 0 || found.stdout.trim() === '') throw notRepository(' of the workdir');
  const top = await realpath(found.stdout.trim()).catch(() => '');
  if (!top || !inside(resolved.workdir, top)) throw notRepository(': its working tree lies outside the workdir');
  // A `.git` file (or a linked worktree) can name a git directory anywhere: commits and branches would land there.
  const dirs = await runHardenedGit({
    cwd: top,
    ceiling,
    args: ['rev-parse', '--path-format=absolute', '--git-dir', '--git-common-dir'],
    signal: ctx.signal,
  });
  const gitDirs = await Promise.all(
    dirs.stdout
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => realpath(line.trim()).catch(() => '')),
  );
  if (dirs.exitCode !== 0 || gitDirs.length === 0 || gitDirs.some((dir) => !dir || !inside(resolved.workdir, dir)))
    throw notRepository(': its git directory lies outside the workdir');
  const rel = relative(top, resolved.realPath).split(sep).join('/');
  const extraConfig = await neutralFilters(top, ceiling);
  return {
    top,
    name: relative(resolved.workdir, top).split(sep).join('/') || '.',
    pathspec: rel === '' ? null : rel,
    git: (args, options = {}) =>
      runHardenedGit({ cwd: top, ceiling, args, extraConfig, signal: ctx.signal, maxBytes: options.maxBytes }),
  };
}

/** The trimmed stdout of a git run; a failure is E_GIT_FAILED quoting git's last lines. */
export function gitOutput(run: GitRun, what: string): string {
  if (run.exitCode === 0) return run.stdout;
  const said = (run.stderr || run.stdout).trim().split('\n').slice(-3).join(' ') || `exit ${run.exitCode}`;
  throw new GoondanError('E_GIT_FAILED', `git ${what} failed: ${said}`);
}
