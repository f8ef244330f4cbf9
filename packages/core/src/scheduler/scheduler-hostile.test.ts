// The scheduler probed as a hostile user and an odd calendar would: DST gaps and overlaps, rules of every size,
// and thousands of schedules, on the injectable clock (no waiting).
import { Database } from 'bun:sqlite';
import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentEvent } from '../agent/agent-event.ts';
import { GoondanError } from '../errors/goondan-error.ts';
import { openInstanceDatabase } from '../store/open-instance-database.ts';
import { buildSchedule } from './build-schedule.ts';
import { nextOccurrence } from './schedule-recurrence.ts';
import { openScheduleStore, ScheduleStore } from './schedule-store.ts';
import { scheduleStoreMigrations } from './schedule-store-migrations.ts';
import type { ScheduleInput, ScheduleTarget } from './schedule-types.ts';
import { Scheduler } from './scheduler.ts';

const dirs: string[] = [];
const stores: ScheduleStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function harness(start: string, accepts?: (target: ScheduleTarget) => boolean) {
  const dir = mkdtempSync(join(tmpdir(), 'gdn-sched-hostile-'));
  dirs.push(dir);
  const store = openScheduleStore({ path: join(dir, 'schedules.db') });
  stores.push(store);
  const clock = { now: Date.parse(start) };
  const delivered: { target: ScheduleTarget; event: AgentEvent }[] = [];
  const scheduler = new Scheduler({
    store,
    now: () => clock.now,
    logger: { warn: () => {} },
    ...(accepts ? { accepts } : {}),
    deliver: async (target, event) => void delivered.push({ target, event }),
  });
  return { store, scheduler, clock, delivered };
}

const target = { agent: 'assistant', instanceKey: 'default' };

/** Local date and time of an ISO instant in a zone: `2026-03-29 03:30`. */
const local = (iso: string, timeZone: string) => new Date(iso).toLocaleString('sv-SE', { timeZone }).slice(0, 16);

/**
 * Runs a scheduler whose clock walks in 5-minute steps from `from` to `to` (as a host that runs all along) and
 * returns the local times it fired at.
 */
async function firedLocally(shape: Partial<ScheduleInput>, timeZone: string, from: string, to: string) {
  const h = harness(from);
  h.scheduler.add({ ...target, ...shape, timeZone, input: 'wake up' });
  for (let t = Date.parse(from); t <= Date.parse(to); t += 5 * 60_000) {
    h.clock.now = t;
    await h.scheduler.runDue();
  }
  return h.delivered.map(({ event }) => local((event.data as { scheduledAt: string }).scheduledAt, timeZone));
}

describe('a daily 02:30 across DST changes fires once a day, never zero or twice', () => {
  // Europe/Berlin: 2026-03-29 02:00 → 03:00 (gap); 2026-10-25 03:00 → 02:00 (02:30 happens twice).
  // America/New_York: 2026-03-08 02:00 → 03:00 (gap); 2026-11-01 02:00 → 01:00 (01:30 twice).
  test.each([
    ['rrule', { rrule: 'FREQ=DAILY;BYHOUR=2;BYMINUTE=30' }],
    ['cron', { cron: '30 2 * * *' }],
  ])('%s in Europe/Berlin, spring and autumn', async (kind, shape) => {
    const spring = await firedLocally(shape, 'Europe/Berlin', '2026-03-27T12:00:00Z', '2026-03-30T12:00:00Z');
    // RFC 5545 drops a local time in a gap, so the rule did not fire on 29 March at all; it fires when the gap moves
    // it to (03:30, as --at places it); cron (croner) at the first minute after the gap.
    expect(spring).toEqual([
      '2026-03-28 02:30',
      kind === 'rrule' ? '2026-03-29 03:30' : '2026-03-29 03:00',
      '2026-03-30 02:30',
    ]);
    const autumn = await firedLocally(shape, 'Europe/Berlin', '2026-10-23T12:00:00Z', '2026-10-26T12:00:00Z');
    expect(autumn).toEqual(['2026-10-24 02:30', '2026-10-25 02:30', '2026-10-26 02:30']);
  });

  test.each([
    ['rrule', { rrule: 'FREQ=DAILY;BYHOUR=2;BYMINUTE=30' }, { rrule: 'FREQ=DAILY;BYHOUR=1;BYMINUTE=30' }],
    ['cron', { cron: '30 2 * * *' }, { cron: '30 1 * * *' }],
  ])('%s in America/New_York: 02:30 over the gap, 01:30 over the overlap', async (kind, gapShape, overlapShape) => {
    const spring = await firedLocally(gapShape, 'America/New_York', '2026-03-07T00:00:00Z', '2026-03-09T18:00:00Z');
    expect(spring).toEqual([
      '2026-03-07 02:30',
      kind === 'rrule' ? '2026-03-08 03:30' : '2026-03-08 03:00',
      '2026-03-09 02:30',
    ]);
    const autumn = await firedLocally(overlapShape, 'America/New_York', '2026-10-31T00:00:00Z', '2026-11-02T18:00:00Z');
    expect(autumn).toEqual(['2026-10-31 01:30', '2026-11-01 01:30', '2026-11-02 01:30']);
  });

  test('a weekly rule with its own DTSTART, UNTIL and EXDATE keeps them in wall-clock time', () => {
    const now = Date.parse('2026-03-01T00:00:00Z');
    const record = buildSchedule({
      input: {
        ...target,
        input: 'x',
        timeZone: 'Europe/Berlin',
        rrule: [
          'DTSTART;TZID=Europe/Berlin:20260315T023000',
          // UNTIL is UTC: 02:30 CEST on 5 April is 00:30Z, so 5 April is the last one.
          'RRULE:FREQ=WEEKLY;UNTIL=20260405T003000Z',
          'EXDATE;TZID=Europe/Berlin:20260322T023000',
        ].join('\n'),
      },
      now,
    });
    const fired: string[] = [];
    let next: number | null = record.nextDueAt;
    while (next !== null && fired.length < 10) {
      fired.push(local(new Date(next).toISOString(), 'Europe/Berlin'));
      next = nextOccurrence(record, next); // what the scheduler asks after each firing
    }
    expect(fired).toEqual(['2026-03-15 02:30', '2026-03-29 03:30', '2026-04-05 02:30']);
  });

  test('an hourly rule still counts elapsed hours: the gap hour is absent, not doubled', async () => {
    const fired = await firedLocally(
      { rrule: 'FREQ=HOURLY;BYMINUTE=0' },
      'Europe/Berlin',
      '2026-03-28T23:30:00Z',
      '2026-03-29T02:10:00Z',
    );
    expect(fired).toEqual(['2026-03-29 01:00', '2026-03-29 03:00', '2026-03-29 04:00']);
  });
});

describe('hostile input is refused with a coded error', () => {
  const now = Date.parse('2026-01-10T08:00:00Z');
  const refusal = (input: Partial<ScheduleInput>) => {
    try {
      buildSchedule({ input: { ...target, input: 'x', ...input } as ScheduleInput, now, agents: ['assistant'] });
    } catch (thrown) {
      expect(thrown).toBeInstanceOf(GoondanError);
      return { code: (thrown as GoondanError).code as string, message: (thrown as Error).message };
    }
    throw new Error('expected a refusal');
  };

  test.each<[string, Partial<ScheduleInput>, string, string]>([
    ['a cron of a megabyte', { cron: `0 9 * * ${'1,'.repeat(500_000)}1` }, 'E_SCHEDULE_INVALID', 'limited to 4000'],
    ['an RRULE of 200 kB', { rrule: `FREQ=DAILY;BYHOUR=${'1,'.repeat(100_000)}1` }, 'E_SCHEDULE_INVALID', 'limited'],
    ['a time of 100 kB', { at: `2026-03-01T00:00:00Z${' '.repeat(100_000)}` }, 'E_SCHEDULE_INVALID', 'limited'],
    ['a cron that is not text', { cron: 5 as never }, 'E_SCHEDULE_INVALID', 'cron must be a string'],
    ['a label that is not text', { inMs: 1000, label: {} as never }, 'E_SCHEDULE_INVALID', 'label must be a string'],
    ['a delay that is text', { inMs: '1000' as never }, 'E_SCHEDULE_INVALID', 'got a string'],
    ['a cron in a year gone by', { cron: '0 0 9 * * * 2020' }, 'E_SCHEDULE_INVALID', 'never matches'],
    ['a cron of 4 fields', { cron: '0 9 * *' }, 'E_SCHEDULE_INVALID', 'five, six, or seven'],
    ['UTC+5', { cron: '0 9 * * *', timeZone: 'UTC+5' }, 'E_SCHEDULE_TIME_ZONE', "'UTC+5'"],
    ['an empty zone', { cron: '0 9 * * *', timeZone: '' }, 'E_SCHEDULE_TIME_ZONE', "''"],
    ['a zone past Etc/GMT+12', { cron: '0 9 * * *', timeZone: 'Etc/GMT+15' }, 'E_SCHEDULE_TIME_ZONE', 'GMT+15'],
    ['30 February', { at: '2026-02-30T09:00' }, 'E_SCHEDULE_INVALID', 'ISO 8601'],
    [
      'an offset its bracketed zone does not have',
      { at: '2026-03-01T09:00+05:00[Asia/Seoul]' },
      'E_SCHEDULE_INVALID',
      'Asia/Seoul does not have at that time (it is +09:00 there)',
    ],
    ['an unknown bracketed zone', { at: '2026-03-01T09:00[Mars/Olympus]' }, 'E_SCHEDULE_TIME_ZONE', 'Mars/Olympus'],
    [
      'a local UNTIL under a zoned DTSTART',
      { rrule: 'DTSTART;TZID=Europe/Berlin:20260327T023000\nRRULE:FREQ=DAILY;UNTIL=20260330T023000' },
      'E_SCHEDULE_INVALID',
      'not a valid RFC 5545 rule: UNTIL',
    ],
  ])('%s', (_, input, code, fragment) => {
    const refused = refusal(input);
    expect(refused.code).toBe(code);
    expect(refused.message).toContain(fragment);
    // A message quotes what it was given short, not a megabyte of it.
    expect(refused.message.length).toBeLessThan(700);
  });

  test('odd but real shapes are taken: Etc/GMT-14, a year field, a delay under a millisecond, the year 9999', () => {
    const build = (input: Partial<ScheduleInput>) =>
      buildSchedule({ input: { ...target, input: 'x', ...input } as ScheduleInput, now });
    expect(build({ cron: '0 9 * * *', timeZone: 'Etc/GMT-14' }).nextDueAt).toBe(Date.parse('2026-01-10T19:00:00Z'));
    expect(build({ cron: '0 0 9 1 1 * 2030' }).nextDueAt).toBe(Date.parse('2030-01-01T09:00:00Z'));
    // Rounded to the nearest ms, 0.3 ms fell on now and was refused as "COUNT or UNTIL used up".
    expect(build({ inMs: 0.3 }).nextDueAt).toBe(now + 1);
    expect(build({ at: '9999-12-31T23:59:59Z' }).nextDueAt).toBe(Date.parse('9999-12-31T23:59:59Z'));
    // RFC 9557: a zone in brackets, with or without its offset, whatever --tz says.
    expect(build({ at: '2026-03-01T09:00[Asia/Seoul]', timeZone: 'Europe/Berlin' }).nextDueAt).toBe(
      Date.parse('2026-03-01T00:00:00Z'),
    );
    expect(build({ at: '2026-10-25T02:30+01:00[Europe/Berlin]' }).nextDueAt).toBe(Date.parse('2026-10-25T01:30:00Z'));
  });
});

describe('many schedules', () => {
  test("a host that fires some targets reaches its own behind a thousand due schedules of others'", async () => {
    const h = harness('2026-01-10T08:00:00Z', (to) => to.instanceKey === 'mine');
    for (let i = 0; i < 1_200; i += 1) h.scheduler.add({ ...target, instanceKey: 'theirs', inMs: 1000, input: 'x' });
    h.scheduler.add({ ...target, instanceKey: 'mine', inMs: 2000, input: 'my alarm' });
    h.clock.now += 5000;
    expect(await h.scheduler.runDue()).toBe(1);
    expect(h.delivered.map(({ event }) => event.input)).toEqual(['my alarm']);
    expect(h.store.list({ instanceKey: 'theirs' })).toHaveLength(1_200);
  });

  test('10,000 schedules due at once each fire exactly once', async () => {
    const h = harness('2026-01-10T08:00:00Z');
    h.store.db.transaction(() => {
      for (let i = 0; i < 10_000; i += 1) h.scheduler.add({ ...target, inMs: 1000 + i, input: `n${i}` });
    })();
    expect(h.scheduler.nextWakeDelay()).toBe(1000);
    h.clock.now += 20_000;
    expect(await h.scheduler.runDue()).toBe(10_000);
    expect(await h.scheduler.runDue()).toBe(0);
    expect(new Set(h.delivered.map(({ event }) => event.id)).size).toBe(10_000);
    expect(h.store.list()).toEqual([]);
  }, 60_000);
});

test('a recurring schedule whose agent left the bundle warns once, not at every firing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gdn-sched-hostile-'));
  dirs.push(dir);
  const store = openScheduleStore({ path: join(dir, 'schedules.db') });
  stores.push(store);
  const clock = { now: Date.parse('2026-01-10T08:00:00Z') };
  const warnings: string[] = [];
  let attempts = 0;
  const scheduler = new Scheduler({
    store,
    now: () => clock.now,
    logger: { warn: (line) => warnings.push(line) },
    deliver: async () => {
      attempts += 1;
      throw Object.assign(new Error("No agent 'gone'"), { code: 'E_AGENT_UNKNOWN' });
    },
  });
  const record = scheduler.add({ agent: 'gone', cron: '* * * * * *', input: 'every second' });
  for (let second = 1; second <= 5; second += 1) {
    clock.now += 1000;
    await scheduler.runDue();
  }
  expect(attempts).toBe(5);
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toContain(`gdn schedules cancel ${record.id}`);
  expect(store.undelivered()).toEqual([]);
});

test('a schedule database another process holds locked: add and cancel are E_STORE_OPEN, nothing written', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gdn-sched-hostile-'));
  dirs.push(dir);
  const path = join(dir, 'schedules.db');
  const store = new ScheduleStore(
    openInstanceDatabase(path, { migrations: scheduleStoreMigrations, busyTimeoutMs: 50 }),
  );
  stores.push(store);
  const scheduler = new Scheduler({ store, deliver: async () => {} });
  const kept = scheduler.add({ ...target, inMs: 60_000, input: 'kept' });
  const other = new Database(path);
  other.run('BEGIN IMMEDIATE');
  other.run("UPDATE schedules SET label = label WHERE id = 'none'");
  const refused = (work: () => unknown) => {
    try {
      work();
    } catch (thrown) {
      return thrown as GoondanError;
    }
    throw new Error('expected a refusal');
  };
  const add = refused(() => scheduler.add({ ...target, inMs: 60_000, input: 'under a lock' }));
  expect(add).toBeInstanceOf(GoondanError);
  expect(add.code).toBe('E_STORE_OPEN');
  expect(add.message).toContain('is locked');
  expect(add.message).toContain('not added');
  const cancel = refused(() => scheduler.cancel(kept.id));
  expect(cancel.code).toBe('E_STORE_OPEN');
  other.run('ROLLBACK');
  other.close();
  expect(scheduler.list().map((record) => record.input)).toEqual(['kept']);
  expect(scheduler.cancel(kept.id)).toBe(true);
});

test('stop() during a pass: the delivery under way finishes, nothing further is taken or delivered', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gdn-sched-hostile-'));
  dirs.push(dir);
  const store = openScheduleStore({ path: join(dir, 'schedules.db') });
  stores.push(store);
  const clock = { now: Date.parse('2026-01-10T08:00:00Z') };
  const release = Promise.withResolvers<void>();
  const entered = Promise.withResolvers<void>();
  const inputs: string[] = [];
  const scheduler = new Scheduler({
    store,
    now: () => clock.now,
    logger: { warn: () => {} },
    deliver: async (_target, event) => {
      inputs.push(String(event.input));
      entered.resolve();
      await release.promise;
    },
  });
  scheduler.add({ ...target, inMs: 1000, input: 'first' });
  const second = scheduler.add({ ...target, inMs: 2000, input: 'second' });
  clock.now += 5000;
  const pass = scheduler.runDue();
  await entered.promise;
  const stopped = scheduler.stop();
  release.resolve();
  await stopped;
  expect(await pass).toBe(1);
  expect(inputs).toEqual(['first']);
  // Left for the next host: still due, not taken.
  expect(store.get(second.id)).toMatchObject({ status: 'active', nextDueAt: second.nextDueAt });
  expect(store.undelivered()).toEqual([]);
});

test('1,200 firings an instance could not take: retried page by page, the wake reads no events, past others', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gdn-sched-hostile-'));
  dirs.push(dir);
  const store = openScheduleStore({ path: join(dir, 'schedules.db') });
  stores.push(store);
  const clock = { now: Date.parse('2026-01-10T08:00:00Z') };
  let failing = true;
  const delivered: string[] = [];
  const host = (accepts?: (to: ScheduleTarget) => boolean) =>
    new Scheduler({
      store,
      now: () => clock.now,
      logger: { warn: () => {} },
      ...(accepts ? { accepts } : {}),
      deliver: async (_target, event) => {
        if (failing) throw Object.assign(new Error('not a database'), { code: 'E_STORE_OPEN' });
        delivered.push(String(event.input));
      },
    });
  const serve = host();
  store.db.transaction(() => {
    for (let i = 0; i < 1_200; i += 1) serve.add({ ...target, instanceKey: 'theirs', inMs: 1000, input: `their ${i}` });
  })();
  serve.add({ ...target, instanceKey: 'mine', inMs: 2000, input: 'mine' });
  clock.now += 5000;
  expect(await serve.runDue()).toBe(0);
  expect(store.undelivered()).toHaveLength(1_201);
  // Neither a wake nor a pass reads every undelivered firing with its event any more.
  const readAll = store.undelivered.bind(store);
  store.undelivered = () => {
    throw new Error('read every undelivered firing');
  };
  expect(serve.nextWakeDelay()).toBe(1000);
  expect(await serve.runDue()).toBe(0); // none due for a retry yet
  failing = false;
  clock.now += 1000;
  // A host that fires only 'mine' reaches it behind 1,200 retries of others'.
  expect(await host((to) => to.instanceKey === 'mine').runDue()).toBe(1);
  expect(delivered).toEqual(['mine']);
  expect(await serve.runDue()).toBe(1_200);
  store.undelivered = readAll;
  expect(store.undelivered()).toEqual([]);
});

test('a cron of every second with a 16,000-character input: delivered firings are kept without the input', async () => {
  const h = harness('2026-01-10T08:00:00Z');
  const input = 'x'.repeat(16_000);
  h.scheduler.add({ ...target, cron: '* * * * * *', input });
  for (let second = 0; second < 100; second += 1) {
    h.clock.now += 1000;
    await h.scheduler.runDue();
  }
  expect(h.delivered).toHaveLength(100);
  expect(h.delivered.every(({ event }) => event.input === input)).toBe(true);
  const rows = h.store.db
    .query<{ status: string; size: number }, []>('SELECT status, length(event) AS size FROM schedule_firings')
    .all();
  expect(rows).toHaveLength(100);
  expect(rows.every((row) => row.status === 'delivered' && row.size < 1000)).toBe(true);
  const kept = h.store.firing(h.delivered[0]!.event.id)!;
  expect(kept.event).toMatchObject({ id: h.delivered[0]!.event.id, type: 'schedule.fired' });
  expect((kept.event as { input?: string }).input).toBeUndefined();
});

test('a store that fails when the loop asks when to wake does not end the loop', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gdn-sched-hostile-'));
  dirs.push(dir);
  const store = openScheduleStore({ path: join(dir, 'schedules.db') });
  stores.push(store);
  const warnings: string[] = [];
  const delivered: string[] = [];
  const scheduler = new Scheduler({
    store,
    maxSleepMs: 5,
    logger: { warn: (line) => warnings.push(line) },
    deliver: async (_target, event) => void delivered.push(String(event.input)),
  });
  const upcoming = store.upcoming.bind(store);
  let failures = 2;
  store.upcoming = (limit) => {
    if (failures > 0) {
      failures -= 1;
      throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    }
    return upcoming(limit);
  };
  scheduler.start();
  try {
    const deadline = Date.now() + 30_000;
    while (failures > 0 && Date.now() < deadline) await Bun.sleep(5);
    // Added by another process (no add() here to wake the loop): the loop must still be running to fire it.
    new Scheduler({ store, deliver: async () => {} }).add({ ...target, inMs: 1, input: 'still fires' });
    while (delivered.length === 0 && Date.now() < deadline) await Bun.sleep(5);
  } finally {
    await scheduler.stop();
  }
  expect(delivered).toEqual(['still fires']);
  expect(warnings[0]).toContain('could not read when to wake after a pass: database is locked');
});

test('add() on a running scheduler whose store then fails to say when to wake: stored, and not an error', async () => {
  const h = harness('2026-01-10T08:00:00Z');
  const warnings: string[] = [];
  const scheduler = new Scheduler({
    store: h.store,
    now: () => h.clock.now,
    logger: { warn: (line) => warnings.push(line) },
    deliver: async () => {},
  });
  scheduler.start();
  try {
    h.store.upcoming = () => {
      throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    };
    const record = scheduler.add({ ...target, inMs: 60_000, input: 'once' });
    expect(h.store.list().map((stored) => stored.id)).toEqual([record.id]);
    expect(warnings.some((line) => line.includes('could not read when to wake after an add'))).toBe(true);
  } finally {
    await scheduler.stop();
  }
});
