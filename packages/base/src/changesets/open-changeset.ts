import { existsSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import {
  changesetBranchPrefix,
  checkChangesetId,
  findChangeset,
  listOpenChangesets,
  plantedLink,
  redirectedWorktreeError,
  removeWorktree,
  worktreeRedirected,
} from './changeset-worktrees.ts';
import { activeRevision, type BundleRepository } from './locate-bundle-repository.ts';
import { git } from './run-git.ts';

/** What opening a changeset gives: where to edit, and the revision the edit starts from. */
export interface OpenedChangeset {
  changeset: string;
  branch: string;
  /** The active revision the changeset started from. */
  base: string;
  /** Absolute worktree path (the whole repository). */
  worktree: string;
  /** Absolute bundle directory inside the worktree: edit the bundle here. */
  bundleDir: string;
  /** False when the changeset was already open and is handed back as it is. */
  created: boolean;
}

/** Where a symbolic link points, as it says. */
function linkTarget(link: string): string {
  try {
    return readlinkSync(link);
  } catch {
    return link;
  }
}

function newChangesetId(): string {
  return `cs-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
}

/**
 * Opens a changeset: a branch `goondan/changeset/<id>` at the active revision, checked out as a git worktree at
 * `<parentDir>/<id>`. Opening a name that is already open hands it back (re-attaching its worktree if needed).
 */
export async function openChangeset(options: {
  repository: BundleRepository;
  parentDir: string;
  name?: string;
}): Promise<OpenedChangeset> {
  const { repository } = options;
  const id = checkChangesetId(options.name ?? newChangesetId());
  const branch = `${changesetBranchPrefix}${id}`;
  const shortBranch = branch.slice('refs/heads/'.length);
  const cwd = repository.repoRoot;
  const existing = (await listOpenChangesets(repository)).find((entry) => entry.changeset === id);
  let worktree = join(options.parentDir, id);
  const active = await activeRevision(repository);
  const leadsTo = existing?.worktree ? worktreeRedirected(existing.worktree) : null;
  if (existing?.worktree && leadsTo)
    throw redirectedWorktreeError({ worktree: existing.worktree, leadsTo, changeset: id });
  const link = plantedLink(worktree);
  if (existing?.worktree && existsSync(existing.worktree)) {
    worktree = existing.worktree;
  } else if (link) {
    // git would check the worktree out where the link points (outside the workdir).
    throw redirectedWorktreeError({ worktree, leadsTo: linkTarget(link), changeset: id });
  } else if (existing) {
    await git({ cwd, args: ['worktree', 'prune'] });
    await git({ cwd, args: ['worktree', 'add', '--quiet', worktree, shortBranch] });
  } else {
    await git({ cwd, args: ['worktree', 'add', '--quiet', '-b', shortBranch, worktree, active] });
  }
  const tip = await git({ cwd, args: ['rev-parse', branch] });
  const base = existing ? await git({ cwd, args: ['merge-base', active, tip] }) : active;
  return {
    changeset: id,
    branch: shortBranch,
    base,
    worktree,
    bundleDir: join(worktree, repository.prefix),
    created: !existing,
  };
}

/** Removes a changeset: its worktree (with any edits in it) and its branch. */
export async function discardChangeset(options: { repository: BundleRepository; changeset: string }): Promise<void> {
  const cwd = options.repository.repoRoot;
  const open = await findChangeset(options.repository, options.changeset);
  if (open.worktree) await removeWorktree(options.repository, open.worktree);
  else await git({ cwd, args: ['worktree', 'prune'] });
  await git({ cwd, args: ['branch', '-D', '--quiet', open.branch.slice('refs/heads/'.length)] });
}
