import { Database } from 'bun:sqlite';
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { saveMemory, updateMemory } from '../memory/memory-store.ts';
import { planMerge } from '../people/merge-profiles.ts';
import { peopleDatabaseAt } from '../people/people-database.ts';
import { addAlias, createProfile, renameProfile } from '../people/people-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'overtaking-writer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * `db` as seen by a change that another process's write overtakes: at the change's first write, a second
 * connection commits a write of its own (when it can get the lock at once). A transaction begun DEFERRED has read
 * an older snapshot by then and fails with SQLITE_BUSY (busy_timeout cannot help); one begun IMMEDIATE holds the
 * write lock from its start, so the other process waits instead.
 */
function overtaken(db: Database, path: string): Database {
  const other = new Database(path);
  other.run('PRAGMA busy_timeout = 0');
  let overtook = false;
  return new Proxy(db, {
    get(target, key) {
      if (key === 'query')
        return (sql: string) => {
          if (!overtook && /^\s*(INSERT|UPDATE|DELETE)/i.test(sql)) {
            overtook = true;
            try {
              other.run("INSERT OR REPLACE INTO assistant_schema (concern, version) VALUES ('overtaking-writer', 0)");
            } catch {
              // The change holds the write lock: the other process would wait for it.
            }
          }
          return target.query(sql);
        };
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe('changes that read before they write hold the write lock from the start (BEGIN IMMEDIATE)', () => {
  test('memory__update and the profile changes are not failed by another process writing meanwhile', () => {
    const path = join(dir, 'assistant.db');
    const db = peopleDatabaseAt(path);
    saveMemory(db, { scope: 'workspace', owner: null }, 'The user likes tea.');
    expect(
      updateMemory(overtaken(db, path), { scope: 'workspace', owner: null }, 'likes tea', 'The user likes coffee.'),
    ).toMatchObject({ after: { content: 'The user likes coffee.' } });
    expect(createProfile(overtaken(db, path), { name: 'Minji', aliases: ['MJ'], description: '' }).name).toBe('Minji');
    createProfile(db, { name: 'Bob', aliases: [], description: '' });
    expect(addAlias(overtaken(db, path), 'Minji', 'Min').aliases).toContain('Min');
    expect(renameProfile(overtaken(db, path), 'Minji', 'Minji Kim').name).toBe('Minji Kim');
    planMerge(overtaken(db, path), 'Bob', 'Minji Kim', 'append').apply();
    expect(db.query('SELECT name FROM people_profiles ORDER BY id').all()).toEqual([{ name: 'Minji Kim' }]);
  });
});
