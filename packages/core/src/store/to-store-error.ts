import { GoondanError } from '../errors/goondan-error.ts';

function sqliteCode(error: unknown): string | undefined {
  if (!(error instanceof Error) || error.name !== 'SQLiteError') return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
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
  if (code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_PERM')) {
    return new GoondanError('E_STORE_OPEN', `Cannot open ${what.toLowerCase()} ${path} for writing (${reason}).`, {
      cause: error,
    });
  }
  return error;
}
