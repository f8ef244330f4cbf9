import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { GoondanError } from '../errors/goondan-error.ts';

function sqliteCode(error: unknown): string | undefined {
  if (!(error instanceof Error) || error.name !== 'SQLiteError') return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Bytes an unprivileged process may still write on the file system holding `path`, or null when it cannot be told.
 * SQLite reports ENOSPC as SQLITE_FULL from its writes, but as SQLITE_IOERR (shared memory, a journal) elsewhere.
 */
function freeBytes(path: string): number | null {
  try {
    const stats = statfsSync(dirname(path));
    return stats.bavail * stats.bsize;
  } catch {
    return null;
  }
}

/** Below this much free space, an I/O error of a write is taken for a full disk (a WAL frame is a page, 4 KiB). */
const FULL_BELOW_BYTES = 64 * 1024;

function diskFull(path: string, what: string, reason: string, error: unknown): GoondanError {
  return new GoondanError(
    'E_STORE_FULL',
    `${what} ${path} cannot be written: the disk is full (${reason}). Nothing of the failed write was kept; what was committed before is intact.`,
    {
      suggestion: `Free space on the disk holding ${dirname(path)}, then run again: the instance goes on from what was committed.`,
      cause: error,
    },
  );
}

/**
 * Turns a SQLite failure that says something about the file itself into a GoondanError naming the file;
 * anything else comes back unchanged, so callers rethrow what this returns. `what` names the kind of file.
 */
export function toStoreError(error: unknown, path: string, what = 'Instance database'): unknown {
  if (error instanceof GoondanError) return error;
  const code = sqliteCode(error);
  if (code === undefined) return error;
  const reason = error instanceof Error ? error.message : String(error);
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    return new GoondanError('E_STORE_CORRUPT', `${what} ${path} is not a readable SQLite database (${reason}).`, {
      suggestion: `Move ${path} aside (with ${path}-wal and ${path}-shm if present) and start again; a new, empty database is created.`,
      cause: error,
    });
  }
  if (code === 'SQLITE_FULL') return diskFull(path, what, reason, error);
  if (code === 'SQLITE_TOOBIG') {
    return new GoondanError(
      'E_STORE_VALUE_INVALID',
      `${what} ${path} cannot store a value that large: SQLite holds at most 1,000,000,000 bytes in one value (${reason}). Nothing of the failed write was kept; what was committed before is intact.`,
      { suggestion: 'Keep large content in a file and store its path instead.', cause: error },
    );
  }
  if (code.startsWith('SQLITE_IOERR')) {
    const free = freeBytes(path);
    if (free !== null && free < FULL_BELOW_BYTES) return diskFull(path, what, reason, error);
    return new GoondanError('E_STORE_OPEN', `Cannot read or write ${what.toLowerCase()} ${path} (${reason}).`, {
      suggestion: `Check the disk holding ${dirname(path)} (space, errors in the system log) and that it is a local file system, then run again.`,
      cause: error,
    });
  }
  if (code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_PERM')) {
    return new GoondanError('E_STORE_OPEN', `Cannot open ${what.toLowerCase()} ${path} for writing (${reason}).`, {
      cause: error,
    });
  }
  return error;
}
