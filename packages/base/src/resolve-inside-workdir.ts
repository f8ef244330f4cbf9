import { lstat, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { GoondanError } from '@goondan/core/errors';
import { outsideWorkdir as outside, relativeComponents } from './relative-components.ts';

/** Where a user-given path leads, once checked to stay inside the workdir. */
export interface ResolvedPath {
  /** The workdir with its symlinks resolved. */
  workdir: string;
  /** Absolute path with every existing symlink resolved; what the tool must actually open. */
  realPath: string;
  /** The path as the user named it, normalized and relative to the workdir, `/`-separated (`.` for the workdir). */
  relativePath: string;
  /** Whether something exists at realPath. */
  exists: boolean;
}

/** Symlink hops followed before giving up, as the kernel does (ELOOP). */
const maxSymlinkHops = 40;

function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

function errorCode(thrown: unknown): string | undefined {
  return (thrown as { code?: string } | null)?.code;
}

/**
 * Resolves every symlink of `path`, also when its last parts do not exist yet: the nearest existing ancestor is
 * realpath'd and the missing rest appended. A dangling symlink is followed by hand so a later create cannot
 * land where it points.
 */
async function realpathAllowingMissing(path: string): Promise<{ real: string; exists: boolean }> {
  const missing: string[] = [];
  let current = path;
  let hops = 0;
  for (;;) {
    try {
      const real = await realpath(current);
      return { real: missing.length === 0 ? real : join(real, ...missing.reverse()), exists: missing.length === 0 };
    } catch (thrown) {
      const code = errorCode(thrown);
      if (code === 'ELOOP') throw thrown;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw thrown;
    }
    const stats = await lstat(current).catch(() => undefined);
    if (stats?.isSymbolicLink()) {
      hops += 1;
      if (hops > maxSymlinkHops) throw Object.assign(new Error('too many symlinks'), { code: 'ELOOP' });
      current = resolve(dirname(current), await readlink(current));
      continue;
    }
    const parent = dirname(current);
    if (parent === current) return { real: join(current, ...missing.reverse()), exists: false };
    missing.push(basename(current));
    current = parent;
  }
}

/**
 * Confines a path to the workdir (DESIGN.md §5): absolute paths and `..` escapes are refused, and symlinks are
 * resolved with realpath (the nearest existing parent for paths that do not exist yet) so that no link can lead
 * out. Throws E_PATH_OUTSIDE_WORKDIR; E_FILE_NOT_FOUND when the workdir itself does not exist.
 *
 * A check that answers a path, not a handle: a directory swapped for a link after it answered is followed by
 * whatever opens the path later. Where the file itself is opened, use `locateInsideWorkdir` and act through the
 * directory it holds, as the file-system tools do (docs/base-tools.md#confinement).
 */
export async function resolveInsideWorkdir(workdir: string, userPath: string): Promise<ResolvedPath> {
  const components = relativeComponents(userPath);
  let root: string;
  try {
    root = await realpath(workdir);
  } catch (thrown) {
    throw new GoondanError('E_FILE_NOT_FOUND', `The workdir '${workdir}' does not exist.`, { cause: thrown });
  }
  const lexical = resolve(root, ...components);
  let resolved: { real: string; exists: boolean };
  try {
    resolved = await realpathAllowingMissing(lexical);
  } catch (thrown) {
    if (errorCode(thrown) === 'ELOOP') throw outside(userPath, 'too many levels of symbolic links');
    throw thrown;
  }
  if (!isInside(root, resolved.real)) throw outside(userPath, 'it leads outside the workdir through a symbolic link');
  const rel = relative(root, lexical);
  return {
    workdir: root,
    realPath: resolved.real,
    relativePath: rel === '' ? '.' : rel.split(sep).join('/'),
    exists: resolved.exists,
  };
}
