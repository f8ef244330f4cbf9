import { Database } from 'bun:sqlite';
import { afterEach, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentEvent } from '../agent/agent-event.ts';
import { openScheduleStore } from './schedule-store.ts';
import { Scheduler } from './scheduler.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** `<tmp>/.goondan/schedules.db`, its directory not made yet. */
function statePath(): { stateDir: string; path: string } {
  const root = mkdtempSync(join(tmpdir(), 'gdn-sched-reopen-'));
  dirs.push(root);
  const stateDir = join(root, '.goondan');
  return { stateDir, path: join(stateDir, 'schedules.db') };
}

/** What the file on disk holds, read by another connection (as the next start would). */
function idsOnDisk(path: string): string[] {
  const db = new Database(path, { readonly: true });
  try {
    return db
      .query<{ id: string }, []>('SELECT id FROM schedules ORDER BY id')
      .all()
      .map((row) => row.id);
  } finally {
    db.close();
  }
}

test('its directory deleted while open: the next write creates the file afresh at its path and is kept there', () => {
  const { stateDir, path } = statePath();
  const reopened: string[] = [];
  const store = openScheduleStore({ path, onReopened: (file) => reopened.push(file) });
  const scheduler = new Scheduler({ store, deliver: async () => {}, now: () => 1_000 });
  const before = scheduler.add({ agent: 'helper', inMs: 60_000, input: 'before' });
  rmSync(stateDir, { recursive: true, force: true });

  const after = scheduler.add({ agent: 'helper', inMs: 60_000, input: 'after' });
  expect(existsSync(path)).toBe(true);
  expect(idsOnDisk(path)).toEqual([after.id]);
  expect(store.get(before.id)).toBeNull();
  expect(reopened).toEqual([path]);
  // Once: the reopened file is the one at the path now.
  scheduler.add({ agent: 'helper', inMs: 60_000, input: 'later' });
  expect(reopened).toEqual([path]);
  store.close();
});

test('the file replaced by another (a new one at its path): reads and writes go to the one there now', () => {
  const { stateDir, path } = statePath();
  const store = openScheduleStore({ path });
  const scheduler = new Scheduler({ store, deliver: async () => {}, now: () => 1_000 });
  scheduler.add({ agent: 'helper', inMs: 60_000, input: 'in the old file' });
  rmSync(stateDir, { recursive: true, force: true });
  // Another process (gdn schedules add) makes the new file first.
  const other = openScheduleStore({ path });
  const elsewhere = new Scheduler({ store: other, deliver: async () => {}, now: () => 1_000 });
  const added = elsewhere.add({ agent: 'helper', inMs: 30_000, input: 'added by another process' });
  other.close();

  expect(store.list({ status: 'all' }).map((schedule) => schedule.id)).toEqual([added.id]);
  store.close();
});

test('a firing in flight as the directory is deleted is delivered once, never again from the new file', async () => {
  const { stateDir, path } = statePath();
  let now = 1_000;
  const store = openScheduleStore({ path });
  const delivered: AgentEvent[] = [];
  const scheduler = new Scheduler({
    store,
    now: () => now,
    deliver: async (_target, event) => {
      delivered.push(event);
      // Deleted while the instance takes the event: the firing was claimed in the old file.
      rmSync(stateDir, { recursive: true, force: true });
    },
  });
  scheduler.add({ agent: 'helper', cron: '*/10 * * * * *', input: 'every 10 s' });
  now += 10_000;
  expect(await scheduler.runDue()).toBe(1);
  expect(delivered).toHaveLength(1);
  // The new file holds no firing to redeliver, nor the schedule (it was in the deleted file).
  expect(store.undelivered()).toEqual([]);
  expect(store.list({ status: 'all' })).toEqual([]);
  now += 60_000;
  expect(await scheduler.runDue()).toBe(0);
  expect(delivered).toHaveLength(1);
  store.close();
});

test('closed, it stays closed: a deleted file is not opened again by a late call', () => {
  const { stateDir, path } = statePath();
  const store = openScheduleStore({ path });
  store.close();
  rmSync(stateDir, { recursive: true, force: true });
  expect(() => store.list()).toThrow();
  expect(existsSync(path)).toBe(false);
});
