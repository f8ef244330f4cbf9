/**
 * Test seam for the file-system tools' confinement: called once a path has been confined and just before the tool
 * acts on it, the moment where swapping a directory for a symbolic link would do the most harm. Tests set it to
 * make that swap happen exactly there; it is never set outside tests.
 */
export type ConfinementHook = (stage: ConfinementStage) => void;

/** Where a tool is when the hook runs: the operation about to act on a confined path. */
export type ConfinementStage =
  /** While walking a path: a symbolic link was seen and is about to be read. */
  'walk-link' | 'read' | 'write' | 'list' | 'replace-plan' | 'replace-apply' | 'delete-plan' | 'delete-apply';

let hook: ConfinementHook | undefined;

/** Sets (or clears, with undefined) the hook. Tests only. */
export function setConfinementHook(next: ConfinementHook | undefined): void {
  hook = next;
}

/** Runs the hook, if a test set one. */
export function confinementCheckpoint(stage: ConfinementStage): void {
  hook?.(stage);
}

let procFdDisabled = false;

/** Makes the tools take the path used where `/proc/self/fd` does not exist (macOS, BSD), to test it on Linux. */
export function setProcFdDisabledForTests(disabled: boolean): void {
  procFdDisabled = disabled;
}

/** Whether a test turned `/proc/self/fd` off. */
export function procFdDisabledForTests(): boolean {
  return procFdDisabled;
}
