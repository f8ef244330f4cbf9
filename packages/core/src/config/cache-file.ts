import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Entries kept in the cache directory; older ones are removed when a new one is written beyond twice as many. */
const keptEntries = 32;

/** `$XDG_CACHE_HOME/goondan`, else `~/.cache/goondan`: files gdn can make again, kept to start faster. */
export function goondanCacheDir(env: Record<string, string | undefined> = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'goondan');
}

/** Writes through a temporary file and a rename, so a concurrent reader sees the whole entry or none. */
export function writeCacheFile(options: { dir: string; path: string; text: string }): void {
  const { dir, path, text } = options;
  const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(temporary, text);
    renameSync(temporary, path);
  } catch {
    // An unwritable cache only means the next load checks the file again.
    try {
      rmSync(temporary, { force: true });
    } catch {
      // The directory itself could not be made: there is no temporary file.
    }
    return;
  }
  pruneEntries(dir);
}

function pruneEntries(dir: string): void {
  try {
    const names = readdirSync(dir);
    if (names.length <= 2 * keptEntries) return;
    const aged = names.map((name) => {
      const path = join(dir, name);
      return { path, time: statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0 };
    });
    aged.sort((a, b) => b.time - a.time);
    for (const { path } of aged.slice(keptEntries)) rmSync(path, { force: true });
  } catch {
    // Another process pruned at the same time, or the directory went away: nothing to do.
  }
}
