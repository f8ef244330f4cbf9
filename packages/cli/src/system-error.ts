import { GoondanError } from '@goondan/core';

/** What the operating system said, in words, for the errors a file or directory operation meets. */
const reasons: Record<string, { what: string; fix: string }> = {
  EACCES: { what: 'permission denied', fix: 'Let the user running gdn write there, or choose another path.' },
  EPERM: { what: 'operation not permitted', fix: 'Let the user running gdn write there, or choose another path.' },
  EROFS: { what: 'the file system is read-only', fix: 'Choose a path on a writable file system.' },
  ENOTDIR: {
    what: 'a part of the path is a file, not a directory',
    fix: 'Move the file that stands where a directory should be, or choose another path.',
  },
  EISDIR: { what: 'it is a directory', fix: 'Name a file, not a directory.' },
  EEXIST: {
    what: 'something else already exists there',
    fix: 'Move what is in the way, or choose another path.',
  },
  ENOENT: { what: 'no such file or directory', fix: 'Check that the directory above it exists.' },
  ENOSPC: { what: 'no space left on the device', fix: 'Free some space and run the command again.' },
  EFBIG: {
    what: 'the file would be larger than allowed (a file size limit)',
    fix: 'Raise the file size limit (ulimit -f) or free quota, then run the command again.',
  },
  EDQUOT: { what: 'the disk quota is used up', fix: 'Free some space within your quota and run the command again.' },
  ENAMETOOLONG: { what: 'the name is too long', fix: 'Choose a shorter path.' },
  ELOOP: { what: 'too many symbolic links', fix: 'Check the symbolic links on the path.' },
  EMFILE: { what: 'too many open files', fix: 'Raise the open-file limit (ulimit -n) or close other programs.' },
};

interface SystemError {
  code: string;
  syscall?: string;
  path?: string;
  message: string;
}

function isSystemError(thrown: unknown): thrown is SystemError {
  const code = (thrown as { code?: unknown } | null)?.code;
  return thrown instanceof Error && typeof code === 'string' && code in reasons;
}

/**
 * A failed file or directory operation (EACCES, ENOTDIR, EEXIST, …, from wherever it came) as E_PATH_ACCESS naming
 * the path, what the system said and what to do; anything else comes back as it is.
 *
 * @example
 * toPathAccessError(Object.assign(new Error('…'), { code: 'EACCES', syscall: 'mkdir', path: '/srv/b/.goondan' }))
 * // GoondanError E_PATH_ACCESS: Cannot mkdir '/srv/b/.goondan': permission denied (EACCES).
 */
export function toPathAccessError(thrown: unknown): unknown {
  if (thrown instanceof GoondanError || !isSystemError(thrown)) return thrown;
  const { what, fix } = reasons[thrown.code]!;
  const action = thrown.syscall ? `${thrown.syscall} ` : 'use ';
  const target = thrown.path ? `'${thrown.path}'` : 'a file or directory';
  return new GoondanError('E_PATH_ACCESS', `Cannot ${action}${target}: ${what} (${thrown.code}).`, {
    suggestion: fix,
    cause: thrown,
  });
}
