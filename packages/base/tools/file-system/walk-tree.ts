import { lstat, readdir } from 'node:fs/promises';
import { GoondanError } from '@goondan/core';

/** Entries visited under one directory before the walk gives up, so a huge tree cannot stall a call. */
export const MAX_WALK_ENTRIES = 100_000;

export type TreeEntryType = 'file' | 'dir' | 'symlink' | 'other';

export interface TreeEntry {
  /** Relative to the walked directory, `/`-separated. */
  name: string;
  /** Absolute path: the walked directory's real path joined with `name` (no symlink inside it is followed). */
  absolutePath: string;
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
 * Every entry under `root` (a real path), depth first with names sorted, a directory before its contents.
 * Symbolic links are reported, never followed, so the walk cannot leave the tree it started in.
 */
export async function* walkTree(options: {
  root: string;
  signal: AbortSignal;
  label: string;
}): AsyncGenerator<TreeEntry> {
  const { root, signal, label } = options;
  let visited = 0;
  async function* walk(prefix: string): AsyncGenerator<TreeEntry> {
    const directory = prefix === '' ? root : `${root}/${prefix}`;
    const names = (await readdir(directory).catch(() => [] as string[])).sort();
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
      const absolutePath = `${directory}/${name}`;
      const stats = await lstat(absolutePath).catch(() => undefined);
      if (!stats) continue;
      const type = typeOf(stats);
      yield { name: relative, absolutePath, type, size: stats.size };
      if (type === 'dir') yield* walk(relative);
    }
  }
  yield* walk('');
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
