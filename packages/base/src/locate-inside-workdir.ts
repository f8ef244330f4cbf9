import { fstatSync, lstatSync, mkdirSync, readlinkSync, realpathSync, type Stats } from 'node:fs';
import { isAbsolute, normalize, relative, sep } from 'node:path';
import { GoondanError } from '@goondan/core/errors';
import { confinementCheckpoint } from './confinement-test-hook.ts';
import {
  type DirectoryHandle,
  entryPath,
  openChildDirectory,
  openDirectoryStrict,
  release,
  type Workdir,
} from './directory-handle.ts';
import { MAX_PATH_BYTES, outsideWorkdir, pathTooLong, relativeComponents } from './relative-components.ts';

/** Where a path given to a file tool lands: an open directory and a name in it. */
export interface Location {
  /** The directory holding the entry, held open; give it back with `release`. */
  parent: DirectoryHandle;
  /** The entry's name in `parent`; null when the path names `parent` itself (the workdir, or a link to a directory
   * whose target ends in `..`). */
  name: string | null;
  /** The path as the user named it, normalized, `/`-separated (`.` for the workdir). */
  relativePath: string;
  /** The entry as found (lstat); undefined when nothing is there. */
  stats: Stats | undefined;
}

export interface LocateOptions {
  /** Follow a symbolic link in the last place (read, write, list); false takes the link itself (delete). */
  followLast?: boolean;
  /** Create missing directories on the way (write). */
  createParents?: boolean;
}

/** Symlink hops followed before giving up, as the kernel does (ELOOP); swaps retried count too. */
const maxSymlinkHops = 40;

function errorCode(thrown: unknown): string | undefined {
  return (thrown as { code?: string } | null)?.code;
}

/** The link's target; undefined when `path` is no longer a link (EINVAL) or is gone (ENOENT). */
function readLinkOrUndefined(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch (thrown) {
    const code = errorCode(thrown);
    if (code === 'EINVAL' || code === 'ENOENT') return undefined;
    throw thrown;
  }
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (thrown) {
    if (errorCode(thrown) === 'ENOENT') return undefined;
    throw thrown;
  }
}

function isInside(root: string, candidate: string): string[] | undefined {
  const rel = relative(root, candidate);
  if (rel === '') return [];
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return rel.split(sep);
}

/**
 * The names, from the workdir, an absolute link target stands for; undefined when it leads outside. Tried as
 * written (against the workdir's real path, then as the user named the workdir), then with its links resolved.
 * Only names come out of this: they are then walked from the open workdir like any other path.
 */
function insideNames(workdir: Workdir, target: string): string[] | undefined {
  const written = normalize(target);
  const inside = isInside(workdir.realPath, written) ?? isInside(workdir.givenPath, written);
  if (inside) return inside;
  try {
    return isInside(workdir.realPath, realpathSync(target));
  } catch {
    return undefined;
  }
}

function notADirectory(relativePath: string, name: string): GoondanError {
  return new GoondanError('E_FILE_NOT_FOUND', `'${name}' in '${relativePath}' is not a directory.`);
}

/**
 * Walks a user path from the open workdir one name at a time, holding each directory open, so that no component
 * can be swapped between the check and the use (docs/base-tools.md#confinement). Symbolic links met on the way are
 * read and resolved by hand, their targets walked the same way: a link that stays inside works, one that leads out
 * (at once or through `..` or a second link) is E_PATH_OUTSIDE_WORKDIR, as are loops. A path whose directories are
 * missing comes back with `stats` undefined (and a `parent` that is not its own), unless `createParents`.
 */
export function locateInsideWorkdir(workdir: Workdir, options: LocateOptions & { path: string }): Location {
  const { path: userPath, followLast = true, createParents = false } = options;
  const pending = relativeComponents(userPath);
  const relativePath = pending.length === 0 ? '.' : pending.join('/');
  const fullBytes = Buffer.byteLength(workdir.realPath) + 1 + Buffer.byteLength(relativePath);
  if (fullBytes > MAX_PATH_BYTES)
    throw pathTooLong(userPath, `${fullBytes} bytes with the workdir; at most ${MAX_PATH_BYTES}`);
  let directory: DirectoryHandle = workdir;
  let hops = 0;
  const hop = () => {
    hops += 1;
    if (hops > maxSymlinkHops) throw outsideWorkdir(userPath, 'too many levels of symbolic links');
  };
  try {
    while (pending.length > 0) {
      const name = pending.shift()!;
      if (name === '..') {
        // Only from a link target: `..` of the directory reached, never above the workdir.
        if (directory.components.length === 0)
          throw outsideWorkdir(userPath, 'it leads outside the workdir through a symbolic link');
        const up = openDirectoryStrict(workdir, workdir, directory.components.slice(0, -1));
        release(directory);
        directory = up;
        continue;
      }
      const last = pending.length === 0;
      const at = entryPath(directory, name);
      const stats = lstatOrUndefined(at);
      if (stats?.isSymbolicLink() && (followLast || !last)) {
        hop();
        confinementCheckpoint('walk-link');
        const target = readLinkOrUndefined(at);
        if (target === undefined) {
          // Swapped since the lstat above (removed, or a directory or file put in its place): look at it again.
          pending.unshift(name);
          continue;
        }
        const parts = target.split('/').filter((part) => part !== '' && part !== '.');
        if (isAbsolute(target)) {
          const inside = insideNames(workdir, target);
          if (!inside) throw outsideWorkdir(userPath, 'it leads outside the workdir through a symbolic link');
          release(directory);
          directory = workdir;
          pending.unshift(...inside);
        } else pending.unshift(...parts);
        continue;
      }
      if (last) return { parent: directory, name, relativePath, stats };
      if (stats !== undefined && !stats.isDirectory()) {
        if (createParents) throw notADirectory(relativePath, name);
        return { parent: directory, name, relativePath, stats: undefined };
      }
      if (stats === undefined) {
        if (!createParents) return { parent: directory, name, relativePath, stats: undefined };
        try {
          mkdirSync(at);
        } catch (thrown) {
          if (errorCode(thrown) !== 'EEXIST') throw thrown;
        }
      }
      let child: DirectoryHandle;
      try {
        child = openChildDirectory(workdir, directory, name);
      } catch (thrown) {
        const code = errorCode(thrown);
        if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'ELOOP') throw thrown;
        // Changed since the lstat above (removed, or swapped for a link or a file): look at it again.
        hop();
        pending.unshift(name);
        continue;
      }
      release(directory);
      directory = child;
    }
  } catch (thrown) {
    release(directory);
    throw thrown;
  }
  // The workdir itself, or a link whose target ends in a directory named by `..` or by the workdir's own path.
  return { parent: directory, name: null, relativePath, stats: fstatSync(directory.fd) };
}

/** Runs `work` with the location of a path, and gives its directory back after. */
export async function withLocation<T>(
  workdir: Workdir,
  options: LocateOptions & { path: string },
  work: (location: Location) => Promise<T> | T,
): Promise<T> {
  const location = locateInsideWorkdir(workdir, options);
  try {
    return await work(location);
  } finally {
    release(location.parent);
  }
}

/** Opens the directory a location names, refusing a link swapped in; ENOENT, ENOTDIR and ELOOP come as they are. */
export function openLocatedDirectory(workdir: Workdir, location: Location): DirectoryHandle {
  if (location.name === null) return { ...location.parent, owned: false };
  return openChildDirectory(workdir, location.parent, location.name);
}
