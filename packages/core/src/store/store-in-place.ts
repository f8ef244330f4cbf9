import { type Stats, statSync } from 'node:fs';
import { GoondanError } from '../errors/goondan-error.ts';

/**
 * Watches that the files an open instance holds (its database, its writer lock) are still the ones at their paths.
 * A process keeps writing to a file deleted under it (`rm -rf .goondan` while `gdn chat` runs): every later write
 * lands in an unlinked file and is lost, and its writer lock no longer keeps anyone out (a new run takes a new lock
 * file and starts the instance afresh). `check()` stats the paths (a few µs) and throws E_STORE_REMOVED once one is
 * gone or replaced, so the next turn is refused instead of lost (an orchestrator then restarts the agent process).
 *
 * @example
 * const inPlace = watchStoreInPlace('assistant/default', [databaseFile, lockFile]);
 * inPlace(); // throws E_STORE_REMOVED after the directory was deleted
 */
export function watchStoreInPlace(instance: string, files: readonly string[]): () => void {
  const watched = files.map((file) => ({ file, inPlace: watchFileInPlace(file) }));
  return () => {
    for (const { file, inPlace } of watched) {
      if (inPlace()) continue;
      const now = statSync(file, { throwIfNoEntry: false });
      throw new GoondanError(
        'E_STORE_REMOVED',
        `The state of agent instance ${instance} was ${now ? 'replaced' : 'removed'} while this process had it open: ${file} is ${now ? 'another file now' : 'gone'}. What this process wrote since is lost, and it runs no more turns of the instance.`,
        {
          suggestion:
            'Start the command again (gdn chat): it opens the instance as it is now, afresh if its directory was deleted. Under gdn serve (or a swarm) send the turn again: a new agent process, started for it, does the same. To start a conversation afresh while chat runs, use /reset instead of deleting its files.',
        },
      );
    }
  };
}

/**
 * Whether the file at `file` is still the one there now (a stat, a few µs, compared by device and inode): false once
 * it is gone or another file. A file absent now is not watched (always true).
 */
export function watchFileInPlace(file: string): () => boolean {
  const opened = statSync(file, { throwIfNoEntry: false });
  if (!opened) return () => true;
  return () => {
    const now = statSync(file, { throwIfNoEntry: false });
    return now !== undefined && sameFile(now, opened);
  };
}

function sameFile(a: Stats, b: Stats): boolean {
  return a.ino === b.ino && a.dev === b.dev;
}
