import { GoondanError } from '@goondan/core/errors';
import { withActivationLock } from './activation-lock.ts';
import type { BundleRepository } from './locate-bundle-repository.ts';
import { git, runGit } from './run-git.ts';

/** The reflog message of every activation (`git update-ref -m`): how an activation is told from other ref moves. */
export const activationReason = 'goondan: activate changeset ';

/** An activation whose process died after moving the branch and before the files followed, finished later. */
export interface FinishedActivation {
  /** The active revision: the files are at it now. */
  revision: string;
  /** The revision the files were still at. */
  previous: string;
  /** The paths brought to `revision`, bundle-relative (repository-relative outside the bundle). */
  files: string[];
}

function splitZ(text: string): string[] {
  return text.split('\0').filter((part) => part !== '');
}

/**
 * The revision the files would still be at if the last activation of the active branch was interrupted: the value
 * the reflog's newest entry replaced when that entry is an activation (`activationReason`) that set the active
 * revision. Without a reflog (`core.logAllRefUpdates=false`), the first parent of an active revision that carries
 * a `Goondan-Changeset:` trailer. Any other last move of the branch (a person's commit, reset, merge) is not ours.
 */
async function revisionBefore(cwd: string, ref: string, active: string): Promise<string | undefined> {
  const last = await runGit({ cwd, args: ['log', '-g', '-n', '1', '--format=%H%x1f%gs', ref, '--'] });
  const [moved = '', reason = ''] = last.stdout.trim().split('\x1f');
  const before = (rev: string) => runGit({ cwd, args: ['rev-parse', '--verify', '-q', `${rev}^{commit}`] });
  if (last.exitCode === 0 && moved !== '') {
    if (moved !== active || !reason.startsWith(activationReason)) return undefined;
    const previous = await before(`${ref}@{1}`);
    return previous.exitCode === 0 ? previous.stdout.trim() : undefined;
  }
  const trailer = await git({
    cwd,
    args: ['log', '-1', '--format=%(trailers:key=Goondan-Changeset,valueonly)', active, '--'],
  });
  if (trailer === '') return undefined;
  const parent = await before(`${active}^1`);
  return parent.exitCode === 0 ? parent.stdout.trim() : undefined;
}

/**
 * Finishes an interrupted activation (docs/changesets.md#an-interrupted-activation), with the activation lock
 * held by the caller. It acts only on exactly the state a process killed between `update-ref` and `read-tree`
 * leaves: the active revision was set by an activation, and every path that activation changes is, in the index
 * and in the files, exactly as in the revision before (no untracked file in its way either). Then it does what
 * the killed process did not (`git read-tree -m -u BEFORE ACTIVE`); the files it overwrites hold nothing but
 * committed content. Anything else (a person's edit in one of those files) is left alone: the activation's own
 * check refuses it as before.
 */
export async function finishActivationLocked(repository: BundleRepository): Promise<FinishedActivation | undefined> {
  const cwd = repository.repoRoot;
  const active = await git({ cwd, args: ['rev-parse', '--verify', `${repository.activeRef}^{commit}`] });
  const previous = await revisionBefore(cwd, repository.activeRef, active);
  if (previous === undefined || previous === active) return undefined;
  const files = splitZ(await git({ cwd, args: ['diff', '--name-only', '--no-renames', '-z', previous, active] }));
  if (files.length === 0) return undefined;
  const paths = ['--', ...files.map((path) => `:(literal)${path}`)];
  const indexAtPrevious = await runGit({ cwd, args: ['diff-index', '--cached', '--quiet', previous, ...paths] });
  if (indexAtPrevious.exitCode !== 0) return undefined;
  const filesAtIndex = await runGit({ cwd, args: ['diff', '--quiet', '--no-ext-diff', '--no-textconv', ...paths] });
  if (filesAtIndex.exitCode !== 0) return undefined;
  const untracked = await runGit({ cwd, args: ['ls-files', '--others', '-z', ...paths] });
  if (untracked.exitCode !== 0 || untracked.stdout !== '') return undefined;
  const updated = await runGit({ cwd, args: ['read-tree', '-m', '-u', previous, active] });
  if (updated.exitCode !== 0) {
    throw new GoondanError(
      'E_CHANGESET_FAILED',
      `The activation of ${active.slice(0, 12)} was interrupted before the files at ${cwd} followed it (they are still at ${previous.slice(0, 12)}), and finishing it failed: ${updated.stderr.trim()}. Nothing was changed.`,
      {
        suggestion: `Resolve what git says in ${cwd}, then bring the files to the active revision: git read-tree -m -u ${previous} ${active}`,
      },
    );
  }
  console.error(
    `[goondan] finished an interrupted activation: the files at ${cwd} were still at ${previous.slice(0, 12)}, now at the active revision ${active.slice(0, 12)} (${files.join(', ')})`,
  );
  const shown = files.map((path) => (path.startsWith(repository.prefix) ? path.slice(repository.prefix.length) : path));
  return { revision: active, previous, files: shown };
}

/**
 * Finishes an interrupted activation if there is one (see finishActivationLocked), taking the activation lock only
 * when the index differs from the active revision at all (otherwise there is nothing to finish).
 */
export async function finishInterruptedActivation(
  repository: BundleRepository,
): Promise<FinishedActivation | undefined> {
  const cwd = repository.repoRoot;
  const clean = await runGit({ cwd, args: ['diff-index', '--cached', '--quiet', repository.activeRef, '--'] });
  if (clean.exitCode === 0) return undefined;
  return withActivationLock(repository.commonDir, () => finishActivationLocked(repository));
}
