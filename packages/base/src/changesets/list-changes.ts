import { listOpenChangesets, type OpenChangeset } from './changeset-worktrees.ts';
import { type FinishedActivation, finishInterruptedActivation } from './finish-activation.ts';
import { activeRevision, type BundleRepository } from './locate-bundle-repository.ts';
import { git } from './run-git.ts';

/** A revision of the active branch that a changeset (or `gdn changes revert`) made. */
export interface ActivatedChange {
  revision: string;
  changeset: string;
  author: string;
  date: string;
  subject: string;
}

export interface ChangesOverview {
  activeRef: string;
  active: string;
  /** Newest first, at most `limit`. */
  activated: ActivatedChange[];
  open: OpenChangeset[];
  /** An activation interrupted before the files followed it, finished by this call. */
  finishedActivation?: FinishedActivation;
}

/**
 * What git records about changesets (there is no other record): the active revision, the commits of the active
 * branch carrying a `Goondan-Changeset:` trailer, and the changeset branches still open. An activation found
 * interrupted (its process died before the files followed the branch) is finished first, and said so.
 */
export async function listChanges(options: { repository: BundleRepository; limit?: number }): Promise<ChangesOverview> {
  const { repository } = options;
  const finishedActivation = await finishInterruptedActivation(repository);
  const format = '%H%x1f%(trailers:key=Goondan-Changeset,valueonly,separator=%x2c)%x1f%an%x1f%aI%x1f%s%x1e';
  const log = await git({
    cwd: repository.repoRoot,
    args: [
      'log',
      '--first-parent',
      `--max-count=${options.limit ?? 20}`,
      '--grep=^Goondan-Changeset: ',
      `--format=${format}`,
      repository.activeRef,
    ],
  });
  const activated = log
    .split('\x1e')
    .map((record) => record.trim())
    .filter((record) => record !== '')
    .map((record) => {
      const [revision = '', changeset = '', author = '', date = '', subject = ''] = record.split('\x1f');
      return { revision, changeset: changeset.trim(), author, date, subject };
    });
  return {
    activeRef: repository.activeRef,
    active: await activeRevision(repository),
    activated,
    open: await listOpenChangesets(repository),
    ...(finishedActivation ? { finishedActivation } : {}),
  };
}
