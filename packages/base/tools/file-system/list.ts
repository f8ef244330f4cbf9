import { lstatSync, readdirSync } from 'node:fs';
import type { ToolContext } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';
import { confinementCheckpoint } from '../../src/confinement-test-hook.ts';
import {
  type DirectoryHandle,
  entryPath,
  openDirectoryStrict,
  release,
  type Workdir,
  withWorkdir,
} from '../../src/directory-handle.ts';
import { openLocatedDirectory, withLocation } from '../../src/locate-inside-workdir.ts';
import { bounded } from './bounded.ts';
import { notFound, openFailure } from './open-failure.ts';

export const DEFAULT_LIST_ENTRIES = 1_000;
export const MAX_LIST_ENTRIES = 10_000;

interface ListInput {
  path?: string;
  recursive?: boolean;
  maxEntries?: number;
}

type EntryType = 'file' | 'dir' | 'symlink' | 'other';

interface ListEntry {
  /** Path relative to the listed directory, `/`-separated. */
  name: string;
  type: EntryType;
  /** Size in bytes for files; null for the rest. */
  size: number | null;
}

function typeOf(stats: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): EntryType {
  if (stats.isSymbolicLink()) return 'symlink';
  if (stats.isDirectory()) return 'dir';
  if (stats.isFile()) return 'file';
  return 'other';
}

/** Names in a subdirectory of the listed one, opened name by name (no link followed); none if it changed. */
function namesIn(
  workdir: Workdir,
  listed: DirectoryHandle,
  prefix: string,
): { directory?: DirectoryHandle; names: string[] } {
  try {
    const directory = openDirectoryStrict(workdir, listed, prefix === '' ? [] : prefix.split('/'));
    try {
      return { directory, names: readdirSync(directory.path).sort() };
    } catch {
      release(directory);
      return { names: [] };
    }
  } catch {
    return { names: [] };
  }
}

/** `file-system__list`: entries of a directory inside the workdir, breadth first, links reported, never followed. */
export async function list(ctx: ToolContext, input: ListInput) {
  const maxEntries = bounded(input.maxEntries, DEFAULT_LIST_ENTRIES, 1, MAX_LIST_ENTRIES);
  return withWorkdir(ctx.workdir, (workdir) =>
    withLocation(workdir, { path: input.path ?? '.' }, (target) => {
      if (target.stats === undefined) throw notFound(target, 'directory');
      confinementCheckpoint('list');
      let listed: DirectoryHandle;
      try {
        listed = openLocatedDirectory(workdir, target);
      } catch (thrown) {
        const code = (thrown as { code?: string }).code;
        if (code !== 'ENOTDIR' || target.stats.isDirectory()) {
          // ENOTDIR for what was a directory: it was swapped for a link (O_NOFOLLOW) since it was found.
          throw openFailure(code === 'ENOTDIR' ? { code: 'ELOOP' } : thrown, input.path ?? '.', target);
        }
        throw new GoondanError(
          'E_FILE_NOT_FOUND',
          `'${target.relativePath}' is a file, not a directory; use file-system__read.`,
        );
      }
      try {
        const entries: ListEntry[] = [];
        let truncated = false;
        const queue: string[] = [''];
        walk: while (queue.length > 0) {
          const prefix = queue.shift()!;
          const { directory, names } = namesIn(workdir, listed, prefix);
          try {
            for (const name of names) {
              if (entries.length >= maxEntries) {
                truncated = true;
                break walk;
              }
              const relativeName = prefix === '' ? name : `${prefix}/${name}`;
              let entryStats: ReturnType<typeof lstatSync>;
              try {
                entryStats = lstatSync(entryPath(directory!, name));
              } catch {
                continue;
              }
              const type = typeOf(entryStats);
              entries.push({ name: relativeName, type, size: type === 'file' ? entryStats.size : null });
              if (type === 'dir' && input.recursive === true) queue.push(relativeName);
            }
          } finally {
            release(directory);
          }
        }
        return { path: target.relativePath, entries, truncated };
      } finally {
        release(listed);
      }
    }),
  );
}
