import { lstatSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** Where an activation lock would be for the git repository holding `dir`, found without running git. */
function activationLockPath(dir: string): string | null {
  for (let current = resolve(dir); ; current = dirname(current)) {
    const dotGit = join(current, '.git');
    let isFile: boolean | undefined;
    try {
      isFile = lstatSync(dotGit).isFile();
    } catch {
      isFile = undefined;
    }
    if (isFile === false) return join(dotGit, 'goondan-activate.lock');
    if (isFile === true) {
      // A worktree: `.git` names its git directory, whose `commondir` names the repository's.
      const gitdir = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim();
      if (!gitdir) return null;
      const own = resolve(current, gitdir);
      let common = own;
      try {
        common = resolve(own, readFileSync(join(own, 'commondir'), 'utf8').trim());
      } catch {
        // No commondir: the git directory is the repository's own.
      }
      return join(common, 'goondan-activate.lock');
    }
    if (dirname(current) === current) return null;
  }
}

/**
 * A changeset activation killed between moving the branch and updating the files leaves its lock behind
 * (docs/changesets.md#an-interrupted-activation). A command that loads the bundle finishes such an activation first,
 * so agents do not run the revision before: a stat when there is no lock, git only when there is one.
 */
export async function finishInterruptedActivationAt(bundleDir: string, log: (line: string) => void): Promise<void> {
  const lock = activationLockPath(bundleDir);
  if (lock === null) return;
  try {
    lstatSync(lock);
  } catch {
    return;
  }
  const { finishInterruptedActivation, locateBundleRepository } = await import('@goondan/base');
  try {
    // Said on stderr by the repair itself ("[goondan] finished an interrupted activation: …").
    await finishInterruptedActivation(await locateBundleRepository(bundleDir));
  } catch (thrown) {
    log(`[goondan] warning: could not check for an interrupted activation: ${(thrown as Error)?.message ?? thrown}`);
  }
}
