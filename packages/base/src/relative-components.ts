import { isAbsolute, posix } from 'node:path';
import { GoondanError } from '@goondan/core/errors';

/** E_PATH_OUTSIDE_WORKDIR for a path a file tool refuses. */
export function outsideWorkdir(userPath: string, why: string): GoondanError {
  return new GoondanError('E_PATH_OUTSIDE_WORKDIR', `Path '${userPath}' is refused: ${why}.`);
}

/**
 * A path given to a file tool as its normalized parts relative to the workdir (`[]` for the workdir itself).
 * Refused: anything but a string, a NUL byte, an absolute path, and `..` that climbs out. `..` inside the path is
 * resolved by name (`a/../b` is `b`), as the user wrote it.
 */
export function relativeComponents(userPath: string): string[] {
  if (typeof userPath !== 'string') throw outsideWorkdir(String(userPath), 'the path must be a string');
  if (userPath.includes('\0')) throw outsideWorkdir(userPath.replaceAll('\0', '\\0'), 'the path contains a NUL byte');
  if (isAbsolute(userPath))
    throw outsideWorkdir(userPath, 'absolute paths are not allowed; use a path relative to the workdir');
  const normalized = posix.normalize(userPath === '' ? '.' : userPath);
  if (normalized === '..' || normalized.startsWith('../'))
    throw outsideWorkdir(userPath, "'..' leads outside the workdir");
  return normalized.split('/').filter((part) => part !== '' && part !== '.');
}
