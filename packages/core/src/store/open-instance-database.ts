import { Database } from 'bun:sqlite';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { GoondanError } from '../errors/goondan-error.ts';
import { type StoreMigration, storeMigrations } from './store-migrations.ts';
import { toStoreError } from './to-store-error.ts';

export interface OpenInstanceDatabaseOptions {
  /**
   * `NORMAL` (default) keeps every committed transaction across a process crash (kill -9); `FULL` also keeps
   * the last ones across an OS crash or power loss, at the price of an fsync per commit.
   */
  synchronous?: 'NORMAL' | 'FULL';
  /** How long a statement waits for another connection's lock before failing with SQLITE_BUSY. Default 5000. */
  busyTimeoutMs?: number;
  /** Schema steps to apply; tests may pass their own. Default: every step in storeMigrations. */
  migrations?: readonly StoreMigration[];
  /**
   * The caller only reads (`gdn trace`, `gdn audit`, the console): a database that exists but cannot be written (a
   * read-only file, directory or file system, another user's state) is then opened read-only instead of failing
   * with E_STORE_OPEN. Opened for writing whenever it can be, so an older schema is still brought up to date.
   */
  forReading?: boolean;
}

export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/**
 * Opens (creating it and its parent directories if needed) the SQLite database of one agent instance, in WAL
 * mode, with the schema brought up to date.
 *
 * Durability: in WAL mode a commit appends the transaction to the -wal file with write() before returning, so it
 * sits in the OS page cache and survives the death of this process however abrupt. `synchronous=NORMAL` only
 * defers the fsync to checkpoints, so an OS crash or power cut may roll back the last few commits, never corrupt
 * the file. That matches the promise "a crash mid-turn loses nothing already appended"; pass
 * `synchronous: 'FULL'` where power loss must not lose them either.
 *
 * @example
 * const db = openInstanceDatabase('.goondan/instances/assistant/default/instance.db');
 * const conversation = new ConversationStore(db);
 */
export function openInstanceDatabase(path: string, options: OpenInstanceDatabaseOptions = {}): Database {
  const inMemory = path === ':memory:' || path === '';
  if (!inMemory) {
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (error) {
      throw new GoondanError('E_STORE_OPEN', `Cannot create the directory of instance database ${path}.`, {
        cause: error,
      });
    }
  }
  try {
    return openForWriting(path, inMemory, options);
  } catch (error) {
    if (!options.forReading || inMemory || !(error instanceof GoondanError) || error.code !== 'E_STORE_OPEN')
      throw error;
    if (!existsSync(path)) throw error;
    return openReadOnly(path, options, error);
  }
}

function openForWriting(path: string, inMemory: boolean, options: OpenInstanceDatabaseOptions): Database {
  let db: Database;
  try {
    db = new Database(path, { create: true, readwrite: true, strict: true });
  } catch (error) {
    throw toStoreError(error, path);
  }
  try {
    configure(db, path, inMemory, options);
    migrate(db, path, options.migrations ?? storeMigrations);
    return db;
  } catch (error) {
    db.close();
    throw toStoreError(error, path);
  }
}

const SQLITE_OPEN_READONLY = 0x01;
const SQLITE_OPEN_URI = 0x40;

/**
 * A database that cannot be written, opened to be read. In WAL mode even a reader needs the `-shm` file: when it
 * cannot be created beside the file and no `-wal` is there (no writer has anything the file lacks: the last one
 * closed cleanly), the file is opened as immutable, which needs neither. With a `-wal` left and no way to share its
 * index, the committed conversation cannot be read safely: E_STORE_OPEN says so.
 */
function openReadOnly(path: string, options: OpenInstanceDatabaseOptions, writeError: GoondanError): Database {
  const uri = `file:${path.split('/').map(encodeURIComponent).join('/')}?immutable=1`;
  const attempts: (() => Database)[] = [() => new Database(path, { readonly: true, strict: true })];
  if (!existsSync(`${path}-wal`)) attempts.push(() => new Database(uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI));
  let failure: unknown;
  for (const attempt of attempts) {
    let db: Database | undefined;
    try {
      db = attempt();
      db.run(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS))}`);
      const latest = (options.migrations ?? storeMigrations).reduce((max, step) => Math.max(max, step.version), 0);
      const found = userVersion(db);
      if (found > latest) {
        throw new GoondanError(
          'E_STORE_SCHEMA_TOO_NEW',
          `Instance database ${path} has schema version ${found}; this goondan knows versions up to ${latest}.`,
        );
      }
      if (found < latest) {
        throw new GoondanError(
          'E_STORE_OPEN',
          `Instance database ${path} cannot be written, and its schema (version ${found}, of an older goondan) must be brought up to version ${latest} before it can be read.`,
          {
            suggestion: `Run gdn once as a user who can write ${path}: it updates the schema; it can be read afterwards.`,
          },
        );
      }
      return db;
    } catch (error) {
      db?.close();
      if (error instanceof GoondanError) throw error;
      failure = error;
    }
  }
  const reason = failure instanceof Error ? failure.message : String(failure);
  const walLeft = existsSync(`${path}-wal`);
  throw new GoondanError('E_STORE_OPEN', `${writeError.message} Reading it read-only failed too (${reason}).`, {
    suggestion: walLeft
      ? `${path}-wal holds commits not yet in the file, and its index (-shm) cannot be made beside it: let a user who can write ${dirname(path)} run gdn once, or read a copy of the three files.`
      : `Make ${dirname(path)} readable, or read a copy of the file.`,
    cause: failure,
  });
}

function configure(db: Database, path: string, inMemory: boolean, options: OpenInstanceDatabaseOptions): void {
  const busyTimeoutMs = Math.max(0, Math.floor(options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS));
  // First, so the one-time switch to WAL below waits for other connections instead of failing at once.
  db.run(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
  const row = db.query<{ journal_mode: string }, []>('PRAGMA journal_mode = WAL').get();
  if (!inMemory && row?.journal_mode.toLowerCase() !== 'wal') {
    throw new GoondanError(
      'E_STORE_OPEN',
      `Instance database ${path} could not switch to WAL mode (journal_mode is ${row?.journal_mode ?? 'unknown'}).`,
      { suggestion: 'Keep the instance directory on a local filesystem; WAL needs shared memory beside the file.' },
    );
  }
  db.run(`PRAGMA synchronous = ${options.synchronous === 'FULL' ? 'FULL' : 'NORMAL'}`);
  db.run('PRAGMA foreign_keys = ON');
}

function userVersion(db: Database): number {
  return db.query<{ user_version: number }, []>('PRAGMA user_version').get()?.user_version ?? 0;
}

/**
 * A file with no schema version of ours whose first migration meets a table of the same name: a SQLite database of
 * another program (or another copy) in the instance's place, reported as E_STORE_CORRUPT rather than SQL.
 */
function foreignDatabase(error: unknown, path: string, version: number): GoondanError | null {
  const message = error instanceof Error ? error.message : '';
  if (version !== 0 || !/already exists/.test(message)) return null;
  return new GoondanError(
    'E_STORE_CORRUPT',
    `Instance database ${path} is a SQLite database of something else: it has no goondan schema version, and ${message}.`,
    {
      suggestion: `Move ${path} aside (with ${path}-wal and ${path}-shm if present) and start again; a new, empty database is created.`,
      cause: error,
    },
  );
}

function migrate(db: Database, path: string, migrations: readonly StoreMigration[]): void {
  const latest = migrations.reduce((max, migration) => Math.max(max, migration.version), 0);
  const found = userVersion(db);
  if (found > latest) {
    throw new GoondanError(
      'E_STORE_SCHEMA_TOO_NEW',
      `Instance database ${path} has schema version ${found}; this goondan knows versions up to ${latest}.`,
    );
  }
  if (found === latest) return;
  // IMMEDIATE takes the write lock before reading the version, so two processes opening a new file at once
  // cannot both run the same step; the loser waits (busy_timeout), then sees the new version and skips.
  db.transaction(() => {
    const current = userVersion(db);
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (migration.version <= current) continue;
      try {
        migration.up(db);
      } catch (error) {
        throw foreignDatabase(error, path, current) ?? error;
      }
      db.run(`PRAGMA user_version = ${Math.floor(migration.version)}`);
    }
  }).immediate();
}
