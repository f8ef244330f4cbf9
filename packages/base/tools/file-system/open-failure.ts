import { GoondanError } from '@goondan/core/errors';

/** E_FILE_NOT_FOUND for a path with nothing there. */
export function notFound(target: { relativePath: string }, what = 'file'): GoondanError {
  return new GoondanError('E_FILE_NOT_FOUND', `No ${what} at '${target.relativePath}' (inside the workdir).`);
}

/** Errors of open(2) that have a code of their own. */
export function openFailure(thrown: unknown, userPath: string, target: { relativePath: string }): unknown {
  const code = (thrown as { code?: string }).code;
  if (code === 'ELOOP') {
    return new GoondanError(
      'E_PATH_OUTSIDE_WORKDIR',
      `Path '${userPath}' became a symbolic link while in use; refused.`,
    );
  }
  if (code === 'ENOENT') return notFound(target);
  if (code === 'EISDIR')
    return new GoondanError('E_FILE_NOT_FOUND', `'${target.relativePath}' is a directory, not a file.`);
  if (code === 'ENXIO')
    return new GoondanError('E_FILE_NOT_FOUND', `'${target.relativePath}' is a special file, not a regular file.`);
  return thrown;
}
