import { isAbsolute, posix } from 'node:path';
import { GoondanError } from '@goondan/core/errors';

/** E_PATH_OUTSIDE_WORKDIR for a path a file tool refuses. */
export function outsideWorkdir(userPath: string, why: string): GoondanError {
  return new GoondanError('E_PATH_OUTSIDE_WORKDIR', `Path '${userPath}' is refused: ${why}.`);
}

/** Linux's limits: a name of at most 255 bytes, a path of at most 4095. */
export const MAX_NAME_BYTES = 255;
export const MAX_PATH_BYTES = 4095;

/** E_TOOL_INVALID_ARGS for a path longer than the file system takes (it would fail as a bare ENAMETOOLONG). */
export function pathTooLong(userPath: string, why: string): GoondanError {
  const shown = userPath.length > 80 ? `${userPath.slice(0, 80)}…` : userPath;
  return new GoondanError('E_TOOL_INVALID_ARGS', `Path '${shown}' is too long: ${why}.`, {
    suggestion: `Use names of at most ${MAX_NAME_BYTES} bytes and a path of at most ${MAX_PATH_BYTES} bytes, workdir included.`,
  });
}

/**
 * A path given to a file tool as its normalized parts relative to the workdir (`[]` for the workdir itself).
 * Refused: anything but a string, a NUL byte, an absolute path, and `..` that climbs out. `..` inside the path is
 * resolved by name (`a/../b` is `b`), as the user wrote it. A name or a path longer than Linux takes is
 * E_TOOL_INVALID_ARGS.
 */
export function relativeComponents(userPath: string): string[] {
  if (typeof userPath !== 'string') throw outsideWorkdir(String(userPath), 'the path must be a string');
  if (userPath.includes('\0')) throw outsideWorkdir(userPath.replaceAll('\0', '\\0'), 'the path contains a NUL byte');
  if (isAbsolute(userPath))
    throw outsideWorkdir(userPath, 'absolute paths are not allowed; use a path relative to the workdir');
  const normalized = posix.normalize(userPath === '' ? '.' : userPath);
  if (normalized === '..' || normalized.startsWith('../'))
    throw outsideWorkdir(userPath, "'..' leads outside the workdir");
  if (Buffer.byteLength(normalized) > MAX_PATH_BYTES)
    throw pathTooLong(userPath, `${Buffer.byteLength(normalized)} bytes; at most ${MAX_PATH_BYTES}`);
  const parts = normalized.split('/').filter((part) => part !== '' && part !== '.');
  const long = parts.find((part) => Buffer.byteLength(part) > MAX_NAME_BYTES);
  if (long !== undefined)
    throw pathTooLong(userPath, `a name of ${Buffer.byteLength(long)} bytes; at most ${MAX_NAME_BYTES}`);
  return parts;
}
