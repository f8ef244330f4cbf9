import { lstatSync, readdirSync } from 'node:fs';
import { GoondanError } from '@goondan/core/errors';
import {
  type DirectoryHandle,
  entryPath,
  openChildDirectory,
  release,
  type Workdir,
} from '../../src/directory-handle.ts';

/** Entries visited under one directory before the walk gives up, so a huge tree cannot stall a call. */
export const MAX_WALK_ENTRIES = 100_000;

export type TreeEntryType = 'file' | 'dir' | 'symlink' | 'other';

export interface TreeEntry {
  /** Relative to the walked directory, `/`-separated. */
  name: string;
  /** The names from the workdir to the entry, none of them a link: how a plan finds it again (openEntryStrict). */
  components: readonly string[];
  type: TreeEntryType;
  size: number;
}

function typeOf(stats: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): TreeEntryType {
  if (stats.isSymbolicLink()) return 'symlink';
  if (stats.isDirectory()) return 'dir';
  if (stats.isFile()) return 'file';
  return 'other';
}

/**
 * Every entry under `root` (an open directory), depth first with names sorted, a directory before its contents.
 * Each directory is opened from the one above it with O_NOFOLLOW and read through its handle, so symbolic links
 * are reported, never followed, and a directory swapped for a link mid-walk is not entered.
 */
export async function* walkTree(options: {
  workdir: Workdir;
  root: DirectoryHandle;
  signal: AbortSignal;
  label: string;
}): AsyncGenerator<TreeEntry> {
  const { workdir, root, signal, label } = options;
  let visited = 0;
  async function* walk(directory: DirectoryHandle, prefix: string): AsyncGenerator<TreeEntry> {
    let names: string[];
    try {
      names = readdirSync(directory.path).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (signal.aborted) throw new GoondanError('E_TOOL_ABORTED', `Scanning '${label}' was cancelled.`);
      visited += 1;
      if (visited > MAX_WALK_ENTRIES) {
        throw new GoondanError(
          'E_TOOL',
          `'${label}' holds more than ${MAX_WALK_ENTRIES} entries; name a smaller directory or a narrower glob.`,
        );
      }
      const relative = prefix === '' ? name : `${prefix}/${name}`;
      let stats: ReturnType<typeof lstatSync>;
      try {
        stats = lstatSync(entryPath(directory, name));
      } catch {
        continue;
      }
      const type = typeOf(stats);
      yield { name: relative, components: [...directory.components, name], type, size: stats.size };
      if (type !== 'dir') continue;
      let child: DirectoryHandle;
      try {
        child = openChildDirectory(workdir, directory, name);
      } catch {
        continue;
      }
      try {
        yield* walk(child, relative);
      } finally {
        release(child);
      }
    }
  }
  yield* walk(root, '');
}

const globCharacters = /[*?[\]{}!\\]/;

/** A checked glob: the pattern to match workdir-relative paths with, and the directory it can match in. */
export interface CheckedGlob {
  pattern: string;
  /** The pattern's leading segments without glob characters (`docs/**\/*.md` → `docs`), or `.`. */
  base: string;
}

/** Checks a glob given by the model. Absolute globs and `..` segments are refused: a glob only matches inside. */
export function checkGlob(glob: string): CheckedGlob {
  if (typeof glob !== 'string' || glob.trim() === '')
    throw new GoondanError('E_TOOL_INVALID_ARGS', 'glob must be a non-empty string, e.g. "**/*.md".');
  if (glob.includes('\0')) throw new GoondanError('E_PATH_OUTSIDE_WORKDIR', 'The glob contains a NUL byte; refused.');
  if (glob.startsWith('/'))
    throw new GoondanError('E_PATH_OUTSIDE_WORKDIR', `Glob '${glob}' is absolute; use one relative to the workdir.`);
  const pattern = glob.replace(/^(\.\/)+/, '');
  const segments = pattern.split('/');
  if (segments.some((segment) => segment === '..'))
    throw new GoondanError('E_PATH_OUTSIDE_WORKDIR', `Glob '${glob}' has a '..' segment; globs only match inside.`);
  const base: string[] = [];
  for (const segment of segments.slice(0, -1)) {
    if (globCharacters.test(segment)) break;
    if (segment !== '' && segment !== '.') base.push(segment);
  }
  return { pattern, base: base.length === 0 ? '.' : base.join('/') };
}
