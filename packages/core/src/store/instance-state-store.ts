import type { Database } from 'bun:sqlite';
import type { JsonValue } from '../types.ts';
import { toStoreError } from './to-store-error.ts';

/**
 * Durable key/value state of one agent instance, for the runtime (pending jobs, the turn in progress) and for
 * extensions (by convention under `extension:<name>/`). Each write commits before it returns.
 *
 * @example
 * const state = new InstanceStateStore(db);
 * state.setState('extension:memory/summary', { text: '...' });
 * state.getState('extension:memory/summary'); // { text: '...' }
 */
export class InstanceStateStore {
  constructor(private readonly db: Database) {}

  /** The value stored under `key`, or undefined when there is none. */
  getState(key: string): JsonValue | undefined {
    const row = this.db.query<{ value: string }, [string]>('SELECT value FROM instance_state WHERE key = ?').get(key);
    return row === null ? undefined : (JSON.parse(row.value) as JsonValue);
  }

  setState(key: string, value: JsonValue): void {
    const text = JSON.stringify(value);
    if (text === undefined) throw new TypeError(`State '${key}' must be a JSON value; use deleteState to remove it.`);
    try {
      this.db
        .query<unknown, [string, string, number]>(
          `INSERT INTO instance_state (key, value, updated_at) VALUES (?1, ?2, ?3)
           ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
        )
        .run(key, text, Date.now());
    } catch (error) {
      throw toStoreError(error, this.db.filename);
    }
  }

  /** Removes `key`; true when it existed. */
  deleteState(key: string): boolean {
    try {
      return this.db.query<unknown, [string]>('DELETE FROM instance_state WHERE key = ?').run(key).changes > 0;
    } catch (error) {
      throw toStoreError(error, this.db.filename);
    }
  }

  /** Keys starting with `prefix` (all keys when it is empty), sorted. */
  stateKeys(prefix = ''): string[] {
    return this.db
      .query<{ key: string }, [string]>(
        'SELECT key FROM instance_state WHERE substr(key, 1, length(?1)) = ?1 ORDER BY key',
      )
      .all(prefix)
      .map((row) => row.key);
  }
}
