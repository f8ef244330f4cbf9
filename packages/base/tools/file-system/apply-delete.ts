import { lstatSync, rmdirSync, unlinkSync } from 'node:fs';
import type { JsonObject } from '@goondan/core';
import { confinementCheckpoint } from '../../src/confinement-test-hook.ts';
import {
  type DirectoryHandle,
  entryPath,
  openDirectoryStrict,
  release,
  type Workdir,
} from '../../src/directory-handle.ts';
import type { TreeEntryType } from './walk-tree.ts';

const PATHS_SHOWN = 200;

/** One entry to remove: `components` name the entry itself (a link, never its target) from the workdir. */
export interface Doomed {
  path: string;
  components: readonly string[];
  type: TreeEntryType;
  size: number | null;
  /** Counted as a change; directories emptied on the way are removed but not counted. */
  counted: boolean;
}

/** The directory holding each planned entry, opened by its names again; one at a time, as entries come in order. */
class Parents {
  private key: string | undefined;
  private directory: DirectoryHandle | undefined;

  constructor(private readonly workdir: Workdir) {}

  /** The open parent of `components`; undefined when it is gone or a name on the way became a link. */
  of(components: readonly string[]): DirectoryHandle | undefined {
    const names = components.slice(0, -1);
    const key = names.join('/');
    if (key === this.key) return this.directory;
    this.close();
    this.key = key;
    try {
      this.directory = openDirectoryStrict(this.workdir, this.workdir, names);
    } catch {
      this.directory = undefined;
    }
    return this.directory;
  }

  close(): void {
    release(this.directory);
    this.directory = undefined;
    this.key = undefined;
  }
}

function typeNow(path: string): TreeEntryType | undefined {
  try {
    const stats = lstatSync(path);
    return stats.isSymbolicLink() ? 'symlink' : stats.isDirectory() ? 'dir' : 'file';
  } catch {
    return undefined;
  }
}

/**
 * Removes the planned entries in order, each through its parent directory opened again by the names it was
 * planned under (a parent swapped for a link since cannot be entered), skipping any that moved, changed type or
 * filled up since the plan.
 */
export async function applyDelete(workdir: Workdir, entries: Doomed[]) {
  const deleted: string[] = [];
  const skipped: JsonObject[] = [];
  const parents = new Parents(workdir);
  try {
    for (const entry of entries) {
      const parent = parents.of(entry.components);
      const name = entry.components[entry.components.length - 1]!;
      const at = parent && entryPath(parent, name);
      const type = at && typeNow(at);
      if (!at || type === undefined || (type === 'dir') !== (entry.type === 'dir')) {
        const gone = at !== undefined && type === undefined;
        skipped.push({ path: entry.path, reason: gone ? 'already gone' : 'changed since it was planned' });
        continue;
      }
      try {
        confinementCheckpoint('delete-apply');
        if (entry.type === 'dir') rmdirSync(at);
        else unlinkSync(at);
        if (entry.counted) deleted.push(entry.path);
      } catch (thrown) {
        skipped.push({ path: entry.path, reason: `not deleted (${(thrown as { code?: string }).code ?? 'error'})` });
      }
    }
  } finally {
    parents.close();
  }
  return {
    deleted: deleted.length,
    paths: deleted.slice(0, PATHS_SHOWN),
    pathsTruncated: deleted.length > PATHS_SHOWN,
    skipped: skipped.slice(0, PATHS_SHOWN),
    skippedCount: skipped.length,
  };
}
