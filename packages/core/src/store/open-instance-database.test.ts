import { Database } from 'bun:sqlite';
import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GoondanError } from '../errors/goondan-error.ts';
import { openInstanceDatabase } from './open-instance-database.ts';
import { type StoreMigration, storeMigrations } from './store-migrations.ts';
import { createTempDirs } from './test-support.ts';

const temp = createTempDirs();
afterEach(() => temp.cleanup());

function pragma(db: ReturnType<typeof openInstanceDatabase>, name: string): unknown {
  const row = db.query<Record<string, unknown>, []>(`PRAGMA ${name}`).get();
  return row === null ? undefined : Object.values(row)[0];
}

function openError(path: string, options: Parameters<typeof openInstanceDatabase>[1] = {}): GoondanError {
  try {
    openInstanceDatabase(path, options).close();
  } catch (error) {
    if (error instanceof GoondanError) return error;
    throw error;
  }
  throw new Error('expected openInstanceDatabase to fail');
}

describe('openInstanceDatabase', () => {
  test('creates missing parent directories and the file', () => {
    const path = join(temp.make(), 'a', 'b', 'instance.db');
    const db = openInstanceDatabase(path);
    expect(existsSync(path)).toBe(true);
    db.close();
  });

  test('turns on WAL, synchronous NORMAL, foreign keys and a busy timeout', () => {
    const db = openInstanceDatabase(join(temp.make(), 'instance.db'));
    expect(pragma(db, 'journal_mode')).toBe('wal');
    expect(pragma(db, 'synchronous')).toBe(1);
    expect(pragma(db, 'foreign_keys')).toBe(1);
    expect(pragma(db, 'busy_timeout')).toBe(5000);
    db.close();
  });

  test('synchronous FULL when asked', () => {
    const db = openInstanceDatabase(join(temp.make(), 'instance.db'), { synchronous: 'FULL', busyTimeoutMs: 50 });
    expect(pragma(db, 'synchronous')).toBe(2);
    expect(pragma(db, 'busy_timeout')).toBe(50);
    db.close();
  });

  test('brings the schema to the latest version and records it in user_version', () => {
    const db = openInstanceDatabase(join(temp.make(), 'instance.db'));
    expect(pragma(db, 'user_version')).toBe(storeMigrations.at(-1)!.version);
    const tables = db
      .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .all()
      .map((row) => row.name);
    expect(tables).toEqual(
      expect.arrayContaining(['conversation_events', 'conversation_bases', 'instance_state', 'trace_spans']),
    );
    db.close();
  });

  test('runs only the migrations a database has not had yet', () => {
    const path = join(temp.make(), 'instance.db');
    let firstRuns = 0;
    const first: StoreMigration = {
      version: 1,
      description: 'one',
      up: (db) => {
        firstRuns++;
        db.run('CREATE TABLE one (x)');
      },
    };
    const second: StoreMigration = { version: 2, description: 'two', up: (db) => db.run('CREATE TABLE two (y)') };
    openInstanceDatabase(path, { migrations: [first] }).close();
    const db = openInstanceDatabase(path, { migrations: [first, second] });
    expect(firstRuns).toBe(1);
    expect(pragma(db, 'user_version')).toBe(2);
    db.run('INSERT INTO two (y) VALUES (1)');
    db.close();
  });

  test('a failing migration leaves the database at its previous version', () => {
    const path = join(temp.make(), 'instance.db');
    const latest = storeMigrations.at(-1)!.version;
    const broken: StoreMigration = {
      version: latest + 1,
      description: 'broken',
      up: (db) => {
        db.run('CREATE TABLE half (x)');
        db.run('THIS IS NOT SQL');
      },
    };
    openInstanceDatabase(path, { migrations: storeMigrations }).close();
    expect(() => openInstanceDatabase(path, { migrations: [...storeMigrations, broken] })).toThrow();
    const db = openInstanceDatabase(path);
    expect(pragma(db, 'user_version')).toBe(latest);
    expect(db.query("SELECT name FROM sqlite_master WHERE name = 'half'").get()).toBeNull();
    db.close();
  });

  test('refuses a database written by a newer schema with E_STORE_SCHEMA_TOO_NEW', () => {
    const path = join(temp.make(), 'instance.db');
    const db = openInstanceDatabase(path);
    db.run('PRAGMA user_version = 99');
    db.close();
    const error = openError(path);
    expect(error.code).toBe('E_STORE_SCHEMA_TOO_NEW');
    expect(error.message).toContain(path);
    expect(error.message).toContain('99');
  });

  test('a file of random bytes is E_STORE_CORRUPT, naming the file and saying to move it aside', () => {
    const path = join(temp.make(), 'instance.db');
    writeFileSync(path, crypto.getRandomValues(new Uint8Array(8192)));
    const error = openError(path);
    expect(error.code).toBe('E_STORE_CORRUPT');
    expect(error.name).toBe('StoreCorruptError');
    expect(error.message).toContain(path);
    expect(error.suggestion).toContain(`Move ${path} aside`);
  });

  test('a text file is E_STORE_CORRUPT too', () => {
    const path = join(temp.make(), 'notes.db');
    writeFileSync(path, 'these are my notes, not a database\n'.repeat(200));
    expect(openError(path).code).toBe('E_STORE_CORRUPT');
  });

  test("another program's SQLite file, with a table of one of ours, is E_STORE_CORRUPT and is left as it was", () => {
    const path = join(temp.make(), 'state.db');
    const foreign = new Database(path);
    foreign.run('CREATE TABLE conversation_events (x)');
    foreign.run("INSERT INTO conversation_events VALUES ('theirs')");
    foreign.close();
    const error = openError(path);
    expect(error.code).toBe('E_STORE_CORRUPT');
    expect(error.message).toContain(path);
    expect(error.message).toContain('conversation_events already exists');
    expect(error.suggestion).toContain(`Move ${path} aside`);
    const after = new Database(path, { readonly: true });
    expect(after.query('SELECT x FROM conversation_events').all()).toEqual([{ x: 'theirs' }]);
    expect(pragma(after as never, 'user_version')).toBe(0);
    after.close();
  });

  test('an empty file is an empty database, not corruption', () => {
    const path = join(temp.make(), 'instance.db');
    writeFileSync(path, '');
    const db = openInstanceDatabase(path);
    expect(pragma(db, 'journal_mode')).toBe('wal');
    db.close();
  });

  test('a directory where the file should be is E_STORE_OPEN', () => {
    const path = join(temp.make(), 'instance.db');
    mkdirSync(path);
    expect(openError(path).code).toBe('E_STORE_OPEN');
  });
});
