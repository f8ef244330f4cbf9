/**
 * Test seam for activation: called at the moments where a process dying, or another process acting, would do the
 * most harm. Tests set it to kill the process right there (a real kill -9 between moving the branch and updating
 * the files) or to interleave two lock takeovers deterministically; it is never set outside tests.
 */
export type ChangesetHook = (stage: ChangesetStage) => void | Promise<void>;

export type ChangesetStage =
  /** The activation lock is held by a process judged dead; the takeover is about to start. */
  | 'lock-judged-stale'
  /** The activation lock is held by a live process; waiting for it. */
  | 'lock-busy'
  /** The active branch was moved to the new revision; the index and files have not followed yet. */
  | 'ref-moved';

let hook: ChangesetHook | undefined;

/** Sets (or clears, with undefined) the hook. Tests only. */
export function setChangesetHook(next: ChangesetHook | undefined): void {
  hook = next;
}

/** Runs the hook, if a test set one. */
export async function changesetCheckpoint(stage: ChangesetStage): Promise<void> {
  if (hook) await hook(stage);
}
