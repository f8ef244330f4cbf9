import { GoondanError } from '@goondan/core/errors';
import { withActivationLock } from './activation-lock.ts';
import { changesetCheckpoint } from './changeset-test-hook.ts';
import { activationReason, type FinishedActivation, finishActivationLocked } from './finish-activation.ts';
import type { BundleRepository } from './locate-bundle-repository.ts';
import { git, gitFailureHint, gitSaid, runGit } from './run-git.ts';

/**
 * `moved`: the active revision is no longer `expected` (someone else won); merge again and retry. `finished`: an
 * earlier activation that was interrupted was finished first (finish-activation.ts).
 */
export type ActivationOutcome = ({ type: 'activated' } | { type: 'moved'; active: string }) & {
  finished?: FinishedActivation;
};

function splitZ(text: string): string[] {
  return text.split('\0').filter((part) => part !== '');
}

/**
 * Makes `revision` active: compare-and-swap of the active branch from `expected` (`git update-ref REF NEW OLD`),
 * then the main working tree and index follow (`git read-tree -m -u OLD NEW`). An earlier activation whose process
 * died between those two steps is finished first (finishActivationLocked). Uncommitted edits of the files the
 * change touches are never overwritten: the activation is refused first (E_CHANGESET_FAILED naming them). The
 * suggestions of its errors say what to fix, not what to do next: the caller knows whether the changeset is still open.
 */
export function activateRevision(options: {
  repository: BundleRepository;
  expected: string;
  revision: string;
  /** The changeset activated: the reflog message says so (`activationReason`). */
  changeset: string;
}): Promise<ActivationOutcome> {
  const { repository } = options;
  return withActivationLock(repository.commonDir, async () => {
    const finished = await finishActivationLocked(repository);
    const outcome = await activateLocked(options);
    return finished ? { ...outcome, finished } : outcome;
  });
}

async function activateLocked(options: Parameters<typeof activateRevision>[0]): Promise<ActivationOutcome> {
  const { repository, expected, revision } = options;
  const cwd = repository.repoRoot;
  const active = await git({ cwd, args: ['rev-parse', '--verify', `${repository.activeRef}^{commit}`] });
  if (active !== expected) return { type: 'moved', active };
  const touched = splitZ(await git({ cwd, args: ['diff', '--name-only', '--no-renames', '-z', expected, revision] }));
  if (touched.length > 0) {
    const status = await runGit({
      cwd,
      args: [
        'status',
        '--porcelain=v1',
        '-z',
        '--untracked-files=all',
        // An ignored file at a path the change adds (a person's local secrets, un-ignored by the change) would be
        // overwritten by read-tree just the same.
        '--ignored',
        '--',
        ...touched.map((path) => `:(literal)${path}`),
      ],
    });
    if (status.exitCode !== 0)
      throw new GoondanError('E_CHANGESET_FAILED', `git status failed: ${status.stderr.trim()}`);
    const entries = splitZ(status.stdout);
    const dirty = entries.filter((entry) => !entry.startsWith('!! ')).map((entry) => entry.slice(3));
    const ignored = entries.filter((entry) => entry.startsWith('!! ')).map((entry) => entry.slice(3));
    if (dirty.length > 0 || ignored.length > 0) {
      const edits =
        dirty.length > 0 ? `uncommitted edits in files the changeset changes: ${dirty.slice(0, 20).join(', ')}` : '';
      const kept =
        ignored.length > 0 ? `files git ignores at paths the changeset adds: ${ignored.slice(0, 20).join(', ')}` : '';
      throw new GoondanError(
        'E_CHANGESET_FAILED',
        `The working tree at ${cwd} has ${[edits, kept].filter(Boolean).join('; and ')}. Nothing was activated.`,
        {
          suggestion:
            dirty.length === 0
              ? `Move the ignored files out of ${cwd} (git stash does not take them)`
              : `Commit or stash those edits in ${cwd} (git add … && git commit, or git stash)${ignored.length > 0 ? ', and move the ignored files out of it (git stash does not take them)' : ''}`,
        },
      );
    }
  }
  const swapped = await runGit({
    cwd,
    args: ['update-ref', '-m', `${activationReason}${options.changeset}`, repository.activeRef, revision, expected],
  });
  if (swapped.exitCode !== 0) {
    const now = await git({ cwd, args: ['rev-parse', '--verify', `${repository.activeRef}^{commit}`] });
    if (now !== expected) return { type: 'moved', active: now };
    throw new GoondanError('E_CHANGESET_FAILED', `git update-ref failed: ${swapped.stderr.trim()}`);
  }
  await changesetCheckpoint('ref-moved');
  const updated = await runGit({ cwd, args: ['read-tree', '-m', '-u', expected, revision] });
  if (updated.exitCode !== 0) {
    // The files could not follow: put the branch back so the ref and the files agree again.
    await runGit({
      cwd,
      args: ['update-ref', '-m', 'goondan: undo activation', repository.activeRef, expected, revision],
    });
    throw new GoondanError(
      'E_CHANGESET_FAILED',
      `Could not update the working tree at ${cwd}: ${gitSaid(updated).replace(/\.$/, '')}. Nothing was activated.`,
      { suggestion: gitFailureHint(updated) ?? `Look at 'git status' in ${cwd} and resolve what it shows` },
    );
  }
  return { type: 'activated' };
}
