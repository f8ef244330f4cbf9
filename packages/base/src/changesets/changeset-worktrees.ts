import { GoondanError } from '@goondan/core/errors';
import type { BundleRepository } from './locate-bundle-repository.ts';
import { git } from './run-git.ts';

/** Every changeset is a branch under this prefix; git is the record of which are open (no state file). */
export const changesetBranchPrefix = 'refs/heads/goondan/changeset/';

const changesetIdPattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** An open changeset as git knows it: its branch, and its worktree when one is checked out. */
export interface OpenChangeset {
  changeset: string;
  branch: string;
  /** Absolute worktree path, or null when the branch has no worktree (it was removed by hand). */
  worktree: string | null;
  tip: string;
}

export function checkChangesetId(id: string): string {
  if (!changesetIdPattern.test(id) || id.includes('..') || id.endsWith('.lock') || id.endsWith('.')) {
    throw new GoondanError(
      'E_TOOL_INVALID_ARGS',
      `Changeset name '${id}' must be 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit.`,
    );
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
