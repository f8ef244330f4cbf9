import { join } from 'node:path';
import { acquireInstanceWriterLock, GoondanError, type InstanceWriterLock, watchFileInPlace } from '@goondan/core';

/**
 * Takes the serve lock of a bundle (`<bundle>/.goondan/serve/writer.lock`): one `gdn serve` at a time per bundle, or
 * two hosts would start the same agent instances and fight over their writer locks. It is the instance writer
 * lock's mechanism, so it is taken atomically, held until `release()` or the end of the process however it ends
 * (a holder killed with SIGKILL leaves nothing in the way), and names its holder for the one refused.
 *
 * @throws GoondanError E_SERVE_BUNDLE_BUSY naming the holder's pid when another process serves the bundle.
 */
export function acquireServeLock(options: { rootDir: string; stateDir?: string }): InstanceWriterLock {
  const dir = serveLockDir(options);
  try {
    return acquireInstanceWriterLock({ dir, instance: `served bundle ${options.rootDir}`, holder: 'gdn serve' });
  } catch (thrown) {
    if (!(thrown instanceof GoondanError) || thrown.code !== 'E_INSTANCE_BUSY') throw thrown;
    // The writer lock's message names the holder as "pid N (what), since T".
    const holder = / is in use by (.+?)\.?$/.exec(thrown.message)?.[1] ?? 'another process';
    throw new GoondanError('E_SERVE_BUNDLE_BUSY', `Bundle ${options.rootDir} is already served by ${holder}.`, {
      cause: thrown,
    });
  }
}

function serveLockDir(options: { rootDir: string; stateDir?: string }): string {
  return join(options.stateDir ?? join(options.rootDir, '.goondan'), 'serve');
}

/** How often a running gdn serve looks that its lock file is still the one it holds (a stat). */
const LOCK_CHECK_MS = 1000;

/**
 * The serve lock for as long as gdn serve runs. A lock file deleted under it (`rm -rf .goondan`) keeps no one out:
 * a second gdn serve would take a new file and start the same agent instances. So the file is looked at every
 * second; when it is gone or another file, the lock is taken again at its path, and if another process holds that
 * one already, `onLost` is told (gdn serve then stops as at SIGTERM, and exits 1) rather than serve the bundle twice.
 *
 * @throws GoondanError E_SERVE_BUNDLE_BUSY at start, as acquireServeLock.
 */
export function holdServeLock(options: {
  rootDir: string;
  stateDir?: string;
  log: (line: string) => void;
  onLost: (why: string) => void;
  checkEveryMs?: number;
}): { release(): void } {
  const file = join(serveLockDir(options), 'writer.lock');
  let lock = acquireServeLock(options);
  let inPlace = watchFileInPlace(file);
  const check = () => {
    if (inPlace()) return;
    // Gone or replaced: taken again at its path.
    lock.release();
    try {
      lock = acquireServeLock(options);
      inPlace = watchFileInPlace(file);
      options.log(`[serve] ${file} was removed or replaced while this gdn serve held it; the lock is taken again`);
    } catch (thrown) {
      clearInterval(timer);
      const reason = thrown instanceof Error ? thrown.message : String(thrown);
      options.onLost(
        `[serve] ${file} was removed or replaced while this gdn serve held it, and cannot be taken again: ${reason} This gdn serve stops, so the bundle is not served twice.`,
      );
    }
  };
  const timer = setInterval(check, options.checkEveryMs ?? LOCK_CHECK_MS);
  timer.unref?.();
  return {
    release() {
      clearInterval(timer);
      lock.release();
    },
  };
}
