import { GoondanError, helpUrlFor } from '@goondan/core';
import { listOpenChangesets, worktreeGitEnv } from './changeset-worktrees.ts';
import { type CommitOutcome, commitChangeset } from './commit-changeset.ts';
import type { BundleRepository } from './locate-bundle-repository.ts';
import { discardChangeset, openChangeset } from './open-changeset.ts';
import { git, runGit } from './run-git.ts';

/** The answer of a revert: a commit's answer, and the full hash of the revision it reverted. */
export type RevertOutcome = CommitOutcome & { reverted: string };

/**
 * Undoes an activated revision the way an agent would change the bundle: a changeset opened at the active
 * revision, `git revert REV` in it, then the usual commit (validation, merge, compare-and-swap activation). Any
 * answer but `ok` leaves nothing behind (the changeset is discarded, and the suggestions say so); a revision whose
 * revert changes nothing is `ok` with `revision` equal to `previous`.
 */
export async function revertChange(options: {
  repository: BundleRepository;
  revision: string;
  /** Where the temporary worktree goes (under the bundle's .goondan/). */
  parentDir: string;
  libraries: string[];
}): Promise<RevertOutcome> {
  const { repository } = options;
  const cwd = repository.repoRoot;
  const resolved = await runGit({ cwd, args: ['rev-parse', '--verify', '-q', `${options.revision}^{commit}`] });
  if (resolved.exitCode !== 0)
    throw new GoondanError('E_CHANGESET_NOT_FOUND', `No revision '${options.revision}' in ${cwd}.`, {
      suggestion: "Pick a revision from 'gdn changes list'.",
    });
  const revision = resolved.stdout.trim();
  // A revision the active branch does not have (an open changeset's attempt, another branch) was never active:
  // "undoing" it would apply the reverse of a change the bundle never had.
  const contained = await runGit({ cwd, args: ['merge-base', '--is-ancestor', revision, repository.activeRef] });
  if (contained.exitCode !== 0)
    throw new GoondanError(
      'E_CHANGESET_NOT_FOUND',
      `Revision '${options.revision}' (${revision.slice(0, 12)}) is not on the active branch ${repository.activeRef.replace('refs/heads/', '')} of ${cwd}: it was never active, so there is nothing of it to revert.`,
      { suggestion: "Pick a revision from 'gdn changes list' (or git log of the active branch)." },
    );
  const name = `revert-${revision.slice(0, 12)}`;
  // One left open under this name (a revert that was killed, or an agent's changeset named so) is not reused: its
  // edits would be activated as part of the person's revert.
  if ((await listOpenChangesets(repository)).some((open) => open.changeset === name))
    await discardChangeset({ repository, changeset: name });
  const opened = await openChangeset({ repository, parentDir: options.parentDir, name });
  if (!opened.created)
    throw new GoondanError('E_CHANGESET_FAILED', `Changeset '${name}' was opened by someone else meanwhile.`, {
      suggestion: `Run gdn changes revert ${revision.slice(0, 12)} again`,
    });
  const pinned = worktreeGitEnv(repository, opened.worktree, opened.changeset);
  const parents = (await git({ cwd, args: ['rev-list', '--parents', '-n', '1', revision] })).split(' ').length - 1;
  const reverted = await runGit({
    cwd: opened.worktree,
    env: pinned,
    args: ['revert', '--no-edit', '--no-commit', ...(parents > 1 ? ['-m', '1'] : []), revision],
  });
  if (reverted.exitCode !== 0) {
    const unmerged = await git({ cwd: opened.worktree, env: pinned, args: ['diff', '--name-only', '--diff-filter=U'] });
    await discardChangeset({ repository, changeset: opened.changeset });
    const files = unmerged.split('\n').filter((line) => line !== '');
    if (files.length === 0)
      throw new GoondanError('E_CHANGESET_FAILED', `git revert failed: ${reverted.stderr.trim()}`);
    return {
      reverted: revision,
      status: 'conflict',
      changeset: opened.changeset,
      active: opened.base,
      files,
      code: 'E_CHANGESET_CONFLICT',
      message: `Reverting ${revision.slice(0, 12)} conflicts with later changes to ${files.join(', ')}; nothing was changed.`,
      suggestion: 'Revert the later revisions that touch those files first (newest first), or edit the files by hand.',
      helpUrl: helpUrlFor('E_CHANGESET_CONFLICT'),
    };
  }
  const subject = (await git({ cwd, args: ['log', '-1', '--format=%s', revision] })).trim();
  const outcome = await commitChangeset({
    repository,
    changeset: opened.changeset,
    message: `Revert "${subject}"\n\nThis reverts commit ${revision}.`,
    allowedPaths: ['**'],
    libraries: options.libraries,
    // A person asked for this revert; a revert that cannot be activated is not left behind as an open changeset.
    afterFailure: { type: 'discard', retry: `run gdn changes revert ${revision.slice(0, 12)} again` },
  });
  return { ...outcome, reverted: revision };
}
