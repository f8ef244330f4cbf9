import { closeSync, constants, fstatSync, openSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { GoondanError } from '@goondan/core/errors';
import { procFdDisabledForTests } from './confinement-test-hook.ts';

/**
 * A directory inside the workdir, held open. Entries are reached through `path`, which on Linux is the magic link
 * `/proc/self/fd/<fd>`: the kernel resolves it to the directory already opened, so renaming or swapping any
 * component of the directory's path for a symbolic link after it was opened changes nothing.
 */
export interface DirectoryHandle {
  fd: number;
  /** Names from the workdir down to this directory, none of them a symbolic link when it was opened. */
  components: readonly string[];
  /** `/proc/self/fd/<fd>` on Linux; elsewhere the real path (checked after each open, see verifyOpened). */
  path: string;
  /** Closed by `release`; false for the workdir itself, which `closeWorkdir` closes. */
  owned: boolean;
}

/** The workdir, opened at the start of a call. */
export interface Workdir extends DirectoryHandle {
  /** The workdir with its symbolic links resolved. */
  realPath: string;
  /** The workdir as configured (absolute), which links inside it may name instead of the real path. */
  givenPath: string;
}

const directoryFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

let procFdWorks: boolean | undefined;

/** Whether `/proc/self/fd/<fd>` leads to the opened directory (Linux with /proc mounted). */
function useProcFd(fd: number, realPath: string): boolean {
  if (procFdDisabledForTests()) return false;
  if (procFdWorks === undefined) {
    try {
      procFdWorks = process.platform === 'linux' && readlinkSync(`/proc/self/fd/${fd}`) === realPath;
    } catch {
      procFdWorks = false;
    }
  }
  return procFdWorks;
}

function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Opens the workdir (reached through links or not). E_FILE_NOT_FOUND when it does not exist. */
export function openWorkdir(workdir: string): Workdir {
  let realPath: string;
  let fd: number;
  try {
    realPath = realpathSync(workdir);
    fd = openSync(realPath, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch (thrown) {
    throw new GoondanError('E_FILE_NOT_FOUND', `The workdir '${workdir}' does not exist.`, { cause: thrown });
  }
  const path = useProcFd(fd, realPath) ? `/proc/self/fd/${fd}` : realPath;
  return { fd, components: [], path, owned: false, realPath, givenPath: resolve(workdir) };
}

export function closeWorkdir(workdir: Workdir): void {
  closeSync(workdir.fd);
}

/** Runs `work` with the workdir open, and closes it after. */
export async function withWorkdir<T>(workdir: string, work: (opened: Workdir) => Promise<T> | T): Promise<T> {
  const opened = openWorkdir(workdir);
  try {
    return await work(opened);
  } finally {
    closeWorkdir(opened);
  }
}

/** Closes a directory opened by `openChildDirectory`; the workdir itself is left open. */
export function release(directory: DirectoryHandle | undefined): void {
  if (directory?.owned) closeSync(directory.fd);
}

/** The path of the entry `name` inside an open directory. */
export function entryPath(directory: DirectoryHandle, name: string): string {
  return `${directory.path}/${name}`;
}

/**
 * Checks that what `fd` holds lies inside the workdir: on Linux by the real path the kernel reports for it; elsewhere
 * (no /proc) by comparing it with what the expected real path holds now, which narrows but cannot close the race.
 */
export function verifyOpened(workdir: Workdir, fd: number, components: readonly string[]): void {
  let inside: boolean;
  if (workdir.path !== workdir.realPath) {
    const real = readlinkSync(`/proc/self/fd/${fd}`);
    inside = isInside(workdir.realPath, real.replace(/ \(deleted\)$/, ''));
  } else {
    const expected = [workdir.realPath, ...components].join('/');
    const opened = fstatSync(fd);
    const now = statSync(expected);
    inside = realpathSync(expected) === expected && opened.dev === now.dev && opened.ino === now.ino;
  }
  if (!inside) {
    throw new GoondanError(
      'E_PATH_OUTSIDE_WORKDIR',
      `'${components.join('/')}' was moved or swapped for a symbolic link while in use; refused.`,
    );
  }
}

/**
 * Opens the subdirectory `name` of an open directory, refusing a symbolic link (ELOOP or ENOTDIR from the kernel).
 * Errors are thrown as they come (ENOENT, ENOTDIR, ELOOP); the caller decides what they mean.
 */
export function openChildDirectory(workdir: Workdir, parent: DirectoryHandle, name: string): DirectoryHandle {
  const fd = openSync(entryPath(parent, name), directoryFlags);
  const components = [...parent.components, name];
  try {
    verifyOpened(workdir, fd, components);
  } catch (thrown) {
    closeSync(fd);
    throw thrown;
  }
  const path = workdir.path === workdir.realPath ? `${parent.path}/${name}` : `/proc/self/fd/${fd}`;
  return { fd, components, path, owned: true };
}

/**
 * Opens the directory `components` below `base` one name at a time, none of them allowed to be a symbolic link:
 * for paths already resolved once (a plan being applied, a tree being walked), where a link now means a swap.
 * With no components it answers `base` itself, not owned, so `release` of the result is always right.
 */
export function openDirectoryStrict(
  workdir: Workdir,
  base: DirectoryHandle,
  components: readonly string[],
): DirectoryHandle {
  if (components.length === 0) return { ...base, owned: false };
  let current = base;
  try {
    for (const name of components) {
      const next = openChildDirectory(workdir, current, name);
      if (current !== base) release(current);
      current = next;
    }
  } catch (thrown) {
    if (current !== base) release(current);
    throw thrown;
  }
  return current;
}
