import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openInstanceDatabase } from '../store/open-instance-database.ts';
import { scheduleCountQuery, scheduleListQuery } from './schedule-list-query.ts';
import { openScheduleStore, type ScheduleStore } from './schedule-store.ts';
import { scheduleStoreMigrations } from './schedule-store-migrations.ts';
import type { ScheduleFilter, ScheduleRecord, ScheduleStatus } from './schedule-types.ts';

const dirs: string[] = [];
const stores: ScheduleStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function storePath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gdn-sched-paging-'));
  dirs.push(dir);
  return join(dir, 'schedules.db');
}

function open(path: string): ScheduleStore {
  const store = openScheduleStore({ path });
  stores.push(store);
  return store;
}

function schedule(
  id: string,
  fields: { nextDueAt: number | null; createdAt: number; status?: ScheduleStatus; agent?: string },
): ScheduleRecord {
  return {
    id,
    agent: fields.agent ?? 'assistant',
    instanceKey: 'default',
    kind: 'at',
    expression: '2027-01-01T00:00:00Z',
    timeZone: 'UTC',
    label: id,
    input: `input of ${id}`,
    missedPolicy: 'fire-once-late',
    status: fields.status ?? (fields.nextDueAt === null ? 'done' : 'active'),
    nextDueAt: fields.nextDueAt,
    lastFiredAt: null,
    createdAt: fields.createdAt,
  };
}

/** Every filter list and count take, and the cursors a page can carry (a due one, a done one). */
const filters: ScheduleFilter[] = [
  {},
  { status: 'all' },
  { status: 'done' },
  { agent: 'assistant' },
  { status: 'all', agent: 'assistant' },
  { status: 'all', instanceKey: 'default' },
  { agent: 'assistant', instanceKey: 'default' },
  { status: 'cancelled', agent: 'assistant', instanceKey: 'default' },
];
const cursors = [undefined, { nextDueAt: 1_000, createdAt: 5, id: 'b' }, { nextDueAt: null, createdAt: 5, id: 'b' }];

function plan(store: ScheduleStore, query: { sql: string; params: unknown[] }): string {
  return store.db
    .query<{ detail: string }, never[]>(`EXPLAIN QUERY PLAN ${query.sql}`)
    .all(...(query.params as never[]))
    .map((row) => row.detail)
    .join(' | ');
}

describe('ScheduleStore paging', () => {
  test('a page is a SEARCH of a list index from its cursor, never a scan of the rows and a sort', () => {
    const store = open(storePath());
    store.insert(schedule('a', { nextDueAt: 1_000, createdAt: 1 }));
    for (const filter of filters) {
      for (const after of cursors) {
        const detail = plan(store, scheduleListQuery(filter, { limit: 200, ...(after ? { after } : {}) }));
        expect(detail).not.toContain('TEMP B-TREE');
        expect(detail).toMatch(/^(SCAN|SEARCH) schedules USING INDEX schedules_list(_status)?\b/);
        // With a cursor the index is entered at it: the rows before it are not walked.
        if (after) expect(detail).toContain('(list_due,created_at,id)>(?,?,?)');
        if (filter.status !== 'all')
          expect(detail).toMatch(/^SEARCH schedules USING INDEX schedules_list_status \(status=\?/);
      }
      // The total is counted in a narrow index, never in the rows (with their inputs of up to 16,000 characters).
      expect(plan(store, scheduleCountQuery(filter))).toMatch(/^(SCAN|SEARCH) schedules USING COVERING INDEX /);
    }
  });

  test('a version-1 database is migrated, and paging it gives every schedule once, in the order it had', () => {
    const path = storePath();
    // The file as a gdn before migration 2 left it.
    const old = openInstanceDatabase(path, { migrations: scheduleStoreMigrations.slice(0, 1) });
    const rows = [
      schedule('n2', { nextDueAt: null, createdAt: 7 }),
      schedule('d1', { nextDueAt: 2_000, createdAt: 3 }),
      schedule('n1', { nextDueAt: null, createdAt: 7, status: 'cancelled' }),
      schedule('t3', { nextDueAt: 1_000, createdAt: 5 }),
      schedule('t1', { nextDueAt: 1_000, createdAt: 5, agent: 'other' }),
      schedule('n0', { nextDueAt: null, createdAt: 2 }),
      schedule('t2', { nextDueAt: 1_000, createdAt: 4 }),
      schedule('z0', { nextDueAt: 0, createdAt: 9 }),
      schedule('d0', { nextDueAt: 2_000, createdAt: 3, status: 'cancelled' }),
      schedule('n3', { nextDueAt: null, createdAt: 7, agent: 'other' }),
      schedule('big', { nextDueAt: 9_007_199_254_740_991, createdAt: 1 }),
    ];
    const insert = old.query(
      `INSERT INTO schedules (id, agent, instance_key, kind, expression, time_zone, label, input, missed_policy,
         status, next_due_at, last_fired_at, created_at)
       VALUES ($id, $agent, $instanceKey, $kind, $expression, $timeZone, $label, $input, $missedPolicy, $status,
         $nextDueAt, $lastFiredAt, $createdAt)`,
    );
    for (const row of rows) insert.run({ ...row });
    old.close();

    const store = open(path);
    expect(store.db.query<{ user_version: number }, []>('PRAGMA user_version').get()?.user_version).toBe(2);
    for (const filter of [{ status: 'all' as const }, {}, { status: 'all' as const, agent: 'assistant' }]) {
      // The order of the statement before the index: due ones by time, then those with none, then creation, id.
      const expected = store.db
        .query<{ id: string; status: string; agent: string }, []>(
          'SELECT id, status, agent FROM schedules ORDER BY next_due_at IS NULL, next_due_at, created_at, id',
        )
        .all()
        .filter((row) => (filter.status === 'all' ? true : row.status === 'active'))
        .filter((row) => filter.agent === undefined || row.agent === filter.agent)
        .map((row) => row.id);
      expect(expected.length).toBeGreaterThan(3);
      for (const limit of [1, 2, 3, 50]) {
        const seen: string[] = [];
        let after: ScheduleRecord | undefined;
        for (let pages = 0; pages <= rows.length; pages += 1) {
          const page = store.list(filter, { limit, ...(after ? { after } : {}) });
          seen.push(...page.map((record) => record.id));
          if (page.length < limit) break;
          after = page.at(-1);
        }
        expect(seen).toEqual(expected);
      }
      expect(store.count(filter)).toBe(expected.length);
      expect(store.list(filter).map((record) => record.id)).toEqual(expected);
    }
    expect(store.list({ status: 'all' }).map((record) => record.id)).toEqual([
      'z0',
      't2',
      't1',
      't3',
      'd0',
      'd1',
      'big',
      'n0',
      'n1',
      'n2',
      'n3',
    ]);
    // A schedule written after the migration has its place in the index too.
    store.insert(schedule('t0', { nextDueAt: 1_000, createdAt: 5 }));
    const afterT1 = store.get('t1')!;
    expect(store.list({ status: 'all' }, { limit: 2, after: afterT1 }).map((record) => record.id)).toEqual([
      't3',
      'd0',
    ]);
    expect(store.list({ status: 'all' }, { limit: 1, after: store.get('t2')! }).map((record) => record.id)).toEqual([
      't0',
    ]);
  });
});
