import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentEvent } from '../agent/agent-event.ts';
import { openScheduleStore, type ScheduleStore } from './schedule-store.ts';
import type { ScheduleTarget } from './schedule-types.ts';
import { Scheduler } from './scheduler.ts';

const dirs: string[] = [];
const stores: ScheduleStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function storePath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gdn-sched-'));
  dirs.push(dir);
  return join(dir, 'schedules.db');
}

/** A scheduler on a fresh store with a clock the test moves, recording what it delivers. */
function harness(options: { start: string; path?: string; fail?: () => boolean }) {
  const clock = { now: Date.parse(options.start) };
  const path = options.path ?? storePath();
  const store = openScheduleStore({ path });
  stores.push(store);
  const delivered: { target: ScheduleTarget; event: AgentEvent }[] = [];
  const scheduler = new Scheduler({
    store,
    now: () => clock.now,
    agents: ['assistant'],
    logger: { warn: () => {} },
    deliver: async (target, event) => {
      if (options.fail?.()) throw Object.assign(new Error('instance busy'), { code: 'E_STORE_OPEN' });
      delivered.push({ target, event });
    },
  });
  const at = (iso: string) => {
    clock.now = Date.parse(iso);
  };
  return { clock, store, scheduler, delivered, at, path };
}

const target = { agent: 'assistant', instanceKey: 'default' };

describe('Scheduler', () => {
  test('fires a one-shot once when due, as schedule.fired from system:scheduler with an idempotent id', async () => {
    const h = harness({ start: '2026-01-10T08:00:00Z' });
    const record = h.scheduler.add({ ...target, inMs: 90_000, label: 'tea', input: 'The tea is ready.' });
    expect(await h.scheduler.runDue()).toBe(0);
    h.at('2026-01-10T08:01:29.999Z');
    expect(await h.scheduler.runDue()).toBe(0);
    h.at('2026-01-10T08:01:31Z');
    expect(await h.scheduler.runDue()).toBe(1);
    expect(await h.scheduler.runDue()).toBe(0);
    const { event, target: to } = h.delivered[0]!;
    const scheduledAt = Date.parse('2026-01-10T08:01:30Z');
    expect(to).toEqual(target);
    expect(event.id).toBe(`sched_${record.id}_${scheduledAt}`);
    expect(event.type).toBe('schedule.fired');
    expect(event.source).toEqual({ kind: 'system', name: 'scheduler' });
    expect(event.input).toBe('The tea is ready.');
    expect(event.data).toEqual({
      scheduleId: record.id,
      label: 'tea',
      scheduledAt: '2026-01-10T08:01:30.000Z',
      firedAt: '2026-01-10T08:01:31.000Z',
      latenessMs: 1000,
      late: false,
    });
    expect(h.store.get(record.id)?.status).toBe('done');
    expect(h.store.firing(event.id)?.status).toBe('delivered');
  });

  test('delivered firings are kept a week, then pruned by a later pass that delivers', async () => {
    const h = harness({ start: '2026-01-10T08:00:00Z' });
    h.scheduler.add({ ...target, inMs: 1_000, label: 'first', input: 'one' });
    h.at('2026-01-10T08:00:02Z');
    expect(await h.scheduler.runDue()).toBe(1);
    const first = h.delivered[0]!.event.id;
    h.scheduler.add({ ...target, inMs: 6 * 86_400_000, label: 'within a week', input: 'two' });
    h.at('2026-01-16T08:00:03Z');
    expect(await h.scheduler.runDue()).toBe(1);
    expect(h.store.firing(first)?.status).toBe('delivered');
    h.scheduler.add({ ...target, inMs: 2 * 86_400_000, label: 'after a week', input: 'three' });
    h.at('2026-01-18T08:00:04Z');
    expect(await h.scheduler.runDue()).toBe(1);
    expect(h.store.firing(first)).toBeNull();
    expect(h.store.firing(h.delivered[2]!.event.id)?.status).toBe('delivered');
  });

  test('a daily RRULE keeps its wall-clock time across the DST change of its zone', async () => {
    const h = harness({ start: '2025-03-07T12:00:00Z' });
    h.scheduler.add({
      ...target,
      rrule: 'FREQ=DAILY;BYHOUR=9;BYMINUTE=0;BYSECOND=0',
      timeZone: 'America/New_York',
      input: 'standup',
    });
    const fired: string[] = [];
    for (const day of [
      '2025-03-07T14:00:05Z',
      '2025-03-08T14:00:05Z',
      '2025-03-09T13:00:05Z',
      '2025-03-10T13:00:05Z',
    ]) {
      h.at(day);
      await h.scheduler.runDue();
      fired.push(String((h.delivered.at(-1)!.event.data as { scheduledAt: string }).scheduledAt));
    }
    expect(fired).toEqual([
      '2025-03-07T14:00:00.000Z',
      '2025-03-08T14:00:00.000Z',
      '2025-03-09T13:00:00.000Z',
      '2025-03-10T13:00:00.000Z',
    ]);
  });

  test('cron runs in its time zone', async () => {
    const h = harness({ start: '2026-01-10T00:00:00Z' });
    const record = h.scheduler.add({ ...target, cron: '30 9 * * *', timeZone: 'Asia/Seoul', input: 'morning' });
    expect(record.nextDueAt).toBe(Date.parse('2026-01-10T00:30:00Z'));
  });

  test('what came due while nothing ran fires once, marked late, and the schedule moves past now', async () => {
    const path = storePath();
    const first = harness({ start: '2026-01-10T08:00:00Z', path });
    const record = first.scheduler.add({ ...target, cron: '0 9 * * *', timeZone: 'UTC', input: 'daily' });
    first.store.close();
    stores.length = 0;
    // Three days later a new process starts on the same store.
    const second = harness({ start: '2026-01-13T12:00:00Z', path });
    expect(await second.scheduler.runDue()).toBe(1);
    const data = second.delivered[0]!.event.data as { late: boolean; latenessMs: number; scheduledAt: string };
    expect(data.late).toBe(true);
    expect(data.scheduledAt).toBe('2026-01-10T09:00:00.000Z');
    expect(data.latenessMs).toBe(Date.parse('2026-01-13T12:00:00Z') - Date.parse('2026-01-10T09:00:00Z'));
    expect(second.store.get(record.id)?.nextDueAt).toBe(Date.parse('2026-01-14T09:00:00Z'));
  });

  test("missedPolicy 'skip' drops a missed occurrence and waits for the next one", async () => {
    const h = harness({ start: '2026-01-10T08:00:00Z' });
    const record = h.scheduler.add({ ...target, cron: '0 9 * * *', missedPolicy: 'skip', input: 'daily' });
    h.at('2026-01-12T12:00:00Z');
    expect(await h.scheduler.runDue()).toBe(0);
    expect(h.delivered).toHaveLength(0);
    expect(h.store.get(record.id)?.nextDueAt).toBe(Date.parse('2026-01-13T09:00:00Z'));
    h.at('2026-01-13T09:00:02Z');
    expect(await h.scheduler.runDue()).toBe(1);
    expect((h.delivered[0]!.event.data as { late: boolean }).late).toBe(false);
  });

  test('a clock that jumps back fires nothing early; jumping forward fires what is now due', async () => {
    const h = harness({ start: '2026-01-10T08:00:00Z' });
    h.scheduler.add({ ...target, at: '2026-01-10T09:00:00Z', input: 'meeting' });
    h.at('2026-01-09T08:00:00Z');
    expect(await h.scheduler.runDue()).toBe(0);
    h.at('2026-01-10T09:00:00Z');
    expect(await h.scheduler.runDue()).toBe(1);
  });

  test('never sleeps past its cap, however far away the next schedule is', () => {
    const h = harness({ start: '2026-01-10T08:00:00Z' });
    h.scheduler.add({ ...target, at: '2027-01-10T08:00:00Z', input: 'next year' });
    expect(h.scheduler.nextWakeDelay()).toBe(1_000);
    h.scheduler.add({ ...target, inMs: 250, input: 'soon' });
    expect(h.scheduler.nextWakeDelay()).toBe(250);
  });

  test('a failed delivery stays undelivered and is retried later with the same event id', async () => {
    let failing = true;
    const h = harness({ start: '2026-01-10T08:00:00Z', fail: () => failing });
    h.scheduler.add({ ...target, inMs: 1000, input: 'ping' });
    h.at('2026-01-10T08:00:01Z');
    expect(await h.scheduler.runDue()).toBe(0);
    const [pending] = h.store.undelivered();
    expect(pending?.lastError).toBe('E_STORE_OPEN: instance busy');
    expect(pending?.nextAttemptAt).toBe(Date.parse('2026-01-10T08:00:02Z'));
    failing = false;
    expect(await h.scheduler.runDue()).toBe(0);
    h.at('2026-01-10T08:00:02Z');
    expect(await h.scheduler.runDue()).toBe(1);
    expect(h.delivered.map((entry) => entry.event.id)).toEqual([pending!.eventId]);
    expect(h.store.undelivered()).toHaveLength(0);
  });

  test('a delivery to an agent no longer in the bundle is dropped once with a warning, not retried', async () => {
    const warnings: string[] = [];
    const store = openScheduleStore({ path: storePath() });
    stores.push(store);
    const clock = { now: Date.parse('2026-01-10T08:00:00Z') };
    let attempts = 0;
    const scheduler = new Scheduler({
      store,
      now: () => clock.now,
      logger: { warn: (line: string) => warnings.push(line) },
      deliver: async () => {
        attempts += 1;
        throw Object.assign(new Error("No agent named 'temp'"), { code: 'E_AGENT_UNKNOWN' });
      },
    });
    scheduler.add({ agent: 'temp', instanceKey: 'default', inMs: 1000, input: 'orphan' });
    clock.now = Date.parse('2026-01-10T08:00:01Z');
    expect(await scheduler.runDue()).toBe(0);
    expect(store.undelivered()).toEqual([]);
    clock.now = Date.parse('2026-01-10T09:00:00Z');
    expect(await scheduler.runDue()).toBe(0);
    expect(attempts).toBe(1);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('dropped (E_AGENT_UNKNOWN');
  });

  test('cancel stops a schedule; an unknown id is refused', async () => {
    const h = harness({ start: '2026-01-10T08:00:00Z' });
    const record = h.scheduler.add({ ...target, inMs: 1000, input: 'ping' });
    expect(h.scheduler.cancel(record.id)).toBe(true);
    expect(h.scheduler.cancel(record.id)).toBe(false);
    expect(h.scheduler.cancel('sch_nope')).toBe(false);
    h.at('2026-01-10T09:00:00Z');
    expect(await h.scheduler.runDue()).toBe(0);
    expect(h.scheduler.list()).toHaveLength(0);
    expect(h.scheduler.list({ status: 'all' })[0]?.status).toBe('cancelled');
  });

  test('count gives what list would, without reading the schedules', () => {
    const h = harness({ start: '2026-01-10T08:00:00Z' });
    const kept = h.scheduler.add({ ...target, inMs: 1000, input: 'one' });
    h.scheduler.add({ ...target, instanceKey: 'other', inMs: 2000, input: 'two' });
    h.scheduler.cancel(h.scheduler.add({ ...target, inMs: 3000, input: 'three' }).id);
    for (const filter of [undefined, { status: 'all' as const }, { instanceKey: 'other' }, { agent: 'nobody' }]) {
      expect(h.scheduler.count(filter)).toBe(h.scheduler.list(filter).length);
    }
    expect(h.scheduler.count()).toBe(2);
    expect(h.scheduler.count({ status: 'all' })).toBe(3);
    expect(h.scheduler.list({ instanceKey: kept.instanceKey }).map((record) => record.id)).toContain(kept.id);
  });

  test('list pages walk every schedule once in its order: ties of due time and creation, done and cancelled last', () => {
    const h = harness({ start: '2026-01-10T08:00:00Z' });
    // Same due times, some added at the same millisecond, some cancelled (no due time): the order's every tie.
    for (let i = 0; i < 23; i += 1) {
      if (i % 5 === 0) h.at(`2026-01-10T08:00:0${Math.min(9, i / 5)}Z`);
      const added = h.scheduler.add({ ...target, inMs: 60_000 * (1 + (i % 3)), input: `n${i}` });
      if (i % 4 === 0) h.scheduler.cancel(added.id);
    }
    const whole = h.scheduler.list({ status: 'all' }).map((record) => record.id);
    expect(whole).toHaveLength(23);
    for (const limit of [1, 4, 7, 50]) {
      const walked: string[] = [];
      let page = h.scheduler.list({ status: 'all' }, { limit });
      while (page.length > 0) {
        expect(page.length).toBeLessThanOrEqual(limit);
        walked.push(...page.map((record) => record.id));
        page = h.scheduler.list({ status: 'all' }, { limit, after: page.at(-1)! });
      }
      expect(walked).toEqual(whole);
    }
    // The filter holds on every page; a cursor of another status still places the page.
    const active = h.scheduler.list();
    const cancelled = h.scheduler.list({ status: 'all' }).find((record) => record.status === 'cancelled')!;
    expect(h.scheduler.list({}, { after: active[2]! })).toEqual(active.slice(3));
    expect(h.scheduler.list({}, { after: cancelled })).toEqual([]);
    expect(h.scheduler.get(cancelled.id)?.status).toBe('cancelled');
    expect(h.scheduler.get('sch_nope')).toBeNull();
  });

  test('only fires the targets it accepts', async () => {
    const h = harness({ start: '2026-01-10T08:00:00Z' });
    const other = new Scheduler({
      store: h.store,
      now: () => h.clock.now,
      accepts: (to) => to.instanceKey === 'other',
      deliver: async (to, event) => void h.delivered.push({ target: to, event }),
    });
    h.scheduler.add({ ...target, inMs: 1000, input: 'ping' });
    h.at('2026-01-10T08:00:05Z');
    expect(await other.runDue()).toBe(0);
    expect(await h.scheduler.runDue()).toBe(1);
  });
});
