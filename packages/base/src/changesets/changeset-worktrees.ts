import { lstatSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { GoondanError } from '@goondan/core/errors';
import type { BundleRepository } from './locate-bundle-repository.ts';
import { git, runGit } from './run-git.ts';

/** Every changeset is a branch under this prefix; git is the record of which are open (no state file). */
export const changesetBranchPrefix = 'refs/heads/goondan/changeset/';

/** An open changeset as git knows it: its branch, and its worktree when one is checked out. */
export interface OpenChangeset {
  changeset: string;
  branch: string;
  /** Absolute worktree path, or null when the branch has no worktree (it was removed by hand). */
  worktree: string | null;
  tip: string;
}

/** What is wrong with a changeset name (it becomes a git branch name), or null when nothing is. */
function changesetIdProblem(id: string): string | null {
  if (id === '') return 'is empty';
  if (id.length > 64) return `is ${id.length} characters long; at most 64`;
  const bad = [...id].find((char) => !/[A-Za-z0-9_.-]/.test(char));
  if (bad !== undefined) return `contains ${JSON.stringify(bad)}`;
  if (!/^[A-Za-z0-9]/.test(id)) return `starts with '${id[0]}'`;
  if (id.includes('..')) return "contains '..', which git does not allow in a branch name";
  if (id.endsWith('.lock')) return "ends with '.lock', which git does not allow in a branch name";
  if (id.endsWith('.')) return "ends with '.', which git does not allow in a branch name";
  return null;
}

export function checkChangesetId(id: string): string {
  const problem = changesetIdProblem(id);
  if (problem) {
    throw new GoondanError('E_TOOL_INVALID_ARGS', `Changeset name '${id}' ${problem}.`, {
      suggestion:
        "Use 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit, without '..' and not ending in '.' or '.lock' (e.g. polite-replies).",
    });
  }
  return id;
}

/** The open changesets of a repository: the changeset branches, with the worktree each is checked out in. */
export async function listOpenChangesets(repository: BundleRepository): Promise<OpenChangeset[]> {
  const cwd = repository.repoRoot;
  const branches = await git({
    cwd,
    args: ['for-each-ref', '--format=%(refname) %(objectname)', changesetBranchPrefix],
  });
  const worktrees = new Map<string, string>();
  let path: string | null = null;
  for (const line of (await git({ cwd, args: ['worktree', 'list', '--porcelain'] })).split('\n')) {
    if (line.startsWith('worktree ')) path = line.slice('worktree '.length);
    else if (line.startsWith('branch ') && path) worktrees.set(line.slice('branch '.length), path);
  }
  return branches
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [branch = '', tip = ''] = line.split(' ');
      return {
        changeset: branch.slice(changesetBranchPrefix.length),
        branch,
        worktree: worktrees.get(branch) ?? null,
        tip,
      };
    });
}

/** The open changeset named `id`; E_CHANGESET_NOT_FOUND lists those that are open. */
export async function findChangeset(repository: BundleRepository, id: string): Promise<OpenChangeset> {
  const open = await listOpenChangesets(repository);
  const found = open.find((entry) => entry.changeset === id);
  if (found) return found;
  const names = open.map((entry) => entry.changeset);
  throw new GoondanError(
    'E_CHANGESET_NOT_FOUND',
    `No open changeset '${id}'. Open changesets: ${names.length ? names.join(', ') : 'none'}.`,
  );
}

/** git's administrative directory of `worktree` (`<common dir>/worktrees/<id>`, found from the repository's side). */
function worktreeAdminDir(repository: BundleRepository, worktree: string): string | undefined {
  const admin = join(repository.commonDir, 'worktrees');
  let names: string[] = [];
  try {
    names = readdirSync(admin);
  } catch {
    // No worktrees at all.
  }
  for (const name of names) {
    let gitdir = '';
    try {
      gitdir = readFileSync(join(admin, name, 'gitdir'), 'utf8').trim();
    } catch {
      continue;
    }
    if (dirname(gitdir) === worktree) return join(admin, name);
  }
  return undefined;
}

/**
 * Where a changeset's worktree leads now, when that is not where git checked it out (git records the real path):
 * the agent's `changesets/` or the worktree itself replaced by a symbolic link. Null when it is the real path or
 * gone. Git run there, or a deletion, would act on what the link points at: the person's files, /etc.
 */
export function worktreeRedirected(worktree: string): string | null {
  let real: string;
  try {
    real = realpathSync(worktree);
  } catch {
    return null;
  }
  return real === worktree ? null : real;
}

/** A symbolic link at `path` or at its parent (the agent's `changesets/`): a worktree added there would land elsewhere. */
export function plantedLink(path: string): string | null {
  for (const candidate of [dirname(path), path]) {
    try {
      if (lstatSync(candidate).isSymbolicLink()) return candidate;
    } catch {
      // Not there (yet): git creates it.
    }
  }
  return null;
}

/** E_CHANGESET_FAILED for a worktree path that leads elsewhere through a symbolic link; nothing there was touched. */
export function redirectedWorktreeError(options: { worktree: string; leadsTo: string; changeset: string }) {
  const { worktree, leadsTo, changeset } = options;
  return new GoondanError(
    'E_CHANGESET_FAILED',
    `The workdir of changeset '${changeset}' (${worktree}) leads to ${leadsTo} through a symbolic link; nothing there was read, written or deleted.`,
    {
      suggestion: `Remove the symbolic link on the way to ${worktree} (a changeset is checked out only inside the workdir), then open the changeset again; one already open comes back at its last commit`,
    },
  );
}

/**
 * The environment that pins git to a changeset worktree: its administrative directory (`<common dir>/worktrees/<id>`,
 * found from the repository's side) and its files. The worktree lies in an agent's workdir, so its `.git` file is
 * the agent's to rewrite; pointed at another git directory it would make `git add` run that one's filter programs,
 * or commit straight onto the active branch past validation and policy. Git pinned this way never reads it, and
 * never runs in a worktree that a symbolic link now leads elsewhere (worktreeRedirected).
 */
export function worktreeGitEnv(
  repository: BundleRepository,
  worktree: string,
  changeset: string,
): Record<string, string> {
  const leadsTo = worktreeRedirected(worktree);
  if (leadsTo) throw redirectedWorktreeError({ worktree, leadsTo, changeset });
  const admin = worktreeAdminDir(repository, worktree);
  if (admin) return { GIT_DIR: admin, GIT_WORK_TREE: worktree };
  throw new GoondanError('E_CHANGESET_FAILED', `git has no record of the worktree ${worktree}.`, {
    suggestion: `Run 'git worktree prune' in ${repository.repoRoot}, then open the changeset again`,
  });
}

/**
 * Removes a changeset's worktree; one whose `.git` file was changed (git refuses it) is deleted and pruned. One that
 * a symbolic link now leads elsewhere is never deleted through it: only git's record of it goes.
 */
export async function removeWorktree(repository: BundleRepository, worktree: string): Promise<void> {
  const cwd = repository.repoRoot;
  if (worktreeRedirected(worktree)) {
    const admin = worktreeAdminDir(repository, worktree);
    if (admin) rmSync(admin, { recursive: true, force: true });
  } else {
    const removed = await runGit({ cwd, args: ['worktree', 'remove', '--force', worktree] });
    if (removed.exitCode !== 0) rmSync(worktree, { recursive: true, force: true });
  }
  await git({ cwd, args: ['worktree', 'prune'] });
}
