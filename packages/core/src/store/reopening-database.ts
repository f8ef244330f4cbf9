import { Database } from 'bun:sqlite';
import { watchFileInPlace } from './store-in-place.ts';

/** A database connection that follows its path: `current()` is the database at the path now. */
export interface ReopeningDatabase {
  readonly path: string;
  /** The open database, opened again first when the file at its path is no longer the one it opened. */
  current(): Database;
  close(): void;
}

/**
 * A long-lived connection of a host (`gdn serve`'s schedules, its OAuth store) that survives its file being deleted
 * or replaced under it (`rm -rf .goondan`). SQLite keeps writing into the unlinked file, so everything committed
 * after that was lost at the next start. `current()` stats the path (a few µs) and, when the file there is not the
 * one opened (gone, or another inode), closes the old connection and opens the path again with `open`, creating it
 * with its schema as a first start would. The old connection is closed first: SQLite removes the `-wal` and `-shm`
 * at the path as the last connection of a file closes, and those belong to the deleted file, not the new one.
 *
 * @example
 * const handle = reopeningDatabase({ path, open: (file) => openInstanceDatabase(file), onReopened: console.error });
 * handle.current().query('SELECT 1').get();
 */
export function reopeningDatabase(options: {
  path: string;
  open: (path: string) => Database;
  /** Told once per reopening (to log it); its errors are ignored. */
  onReopened?: (path: string) => void;
}): ReopeningDatabase {
  const { path, open } = options;
  const inMemory = path === ':memory:' || path === '';
  let db: Database | null = open(path);
  let inPlace = inMemory ? () => true : watchFileInPlace(path);
  let closed: Database | null = null;
  return {
    path,
    current() {
      // Closed: the closed connection, which refuses to be used as any closed database does.
      if (closed) return closed;
      if (db && inPlace()) return db;
      db?.close();
      db = null;
      // When opening fails (the directory cannot be made), the next call tries again.
      db = open(path);
      inPlace = watchFileInPlace(path);
      try {
        options.onReopened?.(path);
      } catch {
        // A logger cannot break the store (STYLE habit 8).
      }
      return db;
    },
    close() {
      if (closed) return;
      db?.close();
      closed = db ?? new Database(':memory:');
      closed.close();
      db = null;
    },
  };
}
