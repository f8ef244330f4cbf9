import { join } from 'node:path';
import { acquireInstanceWriterLock, GoondanError, type InstanceWriterLock } from '@goondan/core';

/**
 * Takes the serve lock of a bundle (`<bundle>/.goondan/serve/writer.lock`): one `gdn serve` at a time per bundle, or
 * two hosts would start the same agent instances and fight over their writer locks. It is the instance writer
 * lock's mechanism, so it is taken atomically, held until `release()` or the end of the process however it ends
 * (a holder killed with SIGKILL leaves nothing in the way), and names its holder for the one refused.
 *
 * @throws GoondanError E_SERVE_BUNDLE_BUSY naming the holder's pid when another process serves the bundle.
 */
export function acquireServeLock(options: { rootDir: string; stateDir?: string }): InstanceWriterLock {
  const dir = join(options.stateDir ?? join(options.rootDir, '.goondan'), 'serve');
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
