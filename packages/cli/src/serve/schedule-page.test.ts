import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openScheduleStore, type ScheduleRecord, Scheduler, scheduleStorePath } from '@goondan/core';
import { NAME_CHARS, PAGE_CHARS, shownSchedule, VALUE_CHARS } from '../console/console-bounds.ts';
import { consoleRoutes } from '../console/console-routes.ts';
import { MAX_SCHEDULE_PAGE, readSchedulePage, SCHEDULE_PAGE } from './schedule-page.ts';
import { scheduleRoutes } from './schedule-routes.ts';
import { createServeApi } from './serve-api.ts';

const rootDir = mkdtempSync(join(tmpdir(), 'gdn-schedule-page-'));
afterAll(() => rmSync(rootDir, { recursive: true, force: true }));

const schedule = (index: number, input = `input ${index}`): ScheduleRecord => ({
  id: `sch_test_${String(index).padStart(5, '0')}`,
  agent: 'helper',
  instanceKey: index % 2 === 0 ? 'even' : 'odd',
  kind: 'at',
  expression: '2099-01-01T00:00:00.000Z',
  timeZone: 'UTC',
  label: `label ${index}`,
  input,
  missedPolicy: 'fire-once-late',
  status: 'active',
  // Ties of due time on purpose: the order goes on by creation, then id.
  nextDueAt: 4_000_000_000_000 + Math.floor(index / 3) * 1000,
  lastFiredAt: null,
  createdAt: 1_000_000 + index,
});

/** A store of `records` at `<root>/.goondan/schedules.db` (where the console reads it). */
function storeOf(root: string, records: ScheduleRecord[]) {
  const path = scheduleStorePath({ rootDir: root });
  mkdirSync(dirname(path), { recursive: true });
  const store = openScheduleStore({ path });
  store.db.transaction(() => {
    for (const record of records) store.insert(record);
  })();
  return store;
}

describe('shownSchedule', () => {
  test('cuts the input and expression to VALUE_CHARS and the label to NAME_CHARS, saying how much', () => {
    const long = { ...schedule(1, 'x'.repeat(16_000)), expression: 'F'.repeat(4_000), label: 'L'.repeat(1_000) };
    const shown = shownSchedule(long);
    expect(shown.input).toHaveLength(VALUE_CHARS);
    expect(shown.expression).toHaveLength(VALUE_CHARS);
    expect(shown.label).toHaveLength(NAME_CHARS);
    expect(shown.cutChars).toBe(16_000 - VALUE_CHARS + (4_000 - VALUE_CHARS) + (1_000 - NAME_CHARS));
    // A short one is sent as stored, without cutChars.
    expect(shownSchedule(schedule(2))).toEqual(schedule(2));
  });
});

describe('readSchedulePage', () => {
  const dir = join(rootDir, 'pages');
  const records = Array.from({ length: 450 }, (_, index) => schedule(index));
  const store = storeOf(dir, records);
  afterAll(() => store.close());
  const ids = (list: { id: string }[]) => list.map((record) => record.id);

  test('the first 200, then page by page on to the last, each pointing at its last schedule', () => {
    const first = readSchedulePage(store, { status: 'all' }, {});
    expect(first.total).toBe(450);
    expect(ids(first.schedules)).toEqual(ids(records.slice(0, SCHEDULE_PAGE)));
    expect(first.later).toBe(records[SCHEDULE_PAGE - 1]!.id);
    const second = readSchedulePage(store, { status: 'all' }, { after: first.later! });
    expect(ids(second.schedules)).toEqual(ids(records.slice(200, 400)));
    const last = readSchedulePage(store, { status: 'all' }, { after: second.later! });
    expect(ids(last.schedules)).toEqual(ids(records.slice(400)));
    expect(last.later).toBeNull();
    // Exactly a page's worth left: no later page pointing at nothing.
    expect(readSchedulePage(store, { status: 'all' }, { limit: 50, after: second.later! }).later).toBeNull();
  });

  test('a filter holds on every page, and total counts what it matches', () => {
    const even = readSchedulePage(store, { instanceKey: 'even' }, { limit: 100 });
    expect(even.total).toBe(225);
    expect(even.schedules.every((record) => record.instanceKey === 'even')).toBe(true);
    const next = readSchedulePage(store, { instanceKey: 'even' }, { limit: 100, after: even.later! });
    expect(next.schedules[0]!.id).toBe(records[200]!.id);
  });

  test('an `after` that names no schedule is a bad request', () => {
    expect(() => readSchedulePage(store, {}, { after: 'sch_nope' })).toThrow(
      expect.objectContaining({ code: 'E_SERVE_BAD_REQUEST' }),
    );
  });

  test('a page of long schedules stops near PAGE_CHARS, later pointing at its last one', () => {
    const big = storeOf(
      join(rootDir, 'big'),
      Array.from({ length: 1200 }, (_, index) => schedule(index, 'y'.repeat(16_000))),
    );
    try {
      const page = readSchedulePage(big, {}, { limit: MAX_SCHEDULE_PAGE });
      expect(JSON.stringify(page).length).toBeLessThan(PAGE_CHARS + 10_000);
      expect(page.schedules.length).toBeGreaterThan(1);
      expect(page.schedules.length).toBeLessThan(1200);
      expect(page.schedules.every((record) => record.cutChars === 16_000 - VALUE_CHARS)).toBe(true);
      expect(page.later).toBe(page.schedules.at(-1)!.id);
      // Paging on reaches every one, once.
      const seen = new Set(ids(page.schedules));
      let later = page.later;
      while (later !== null) {
        const next = readSchedulePage(big, {}, { limit: MAX_SCHEDULE_PAGE, after: later });
        for (const id of ids(next.schedules)) seen.add(id);
        later = next.later;
      }
      expect(seen.size).toBe(1200);
    } finally {
      big.close();
    }
  });
});

describe('GET /v1/schedules and /console/api/schedules', () => {
  const dir = join(rootDir, 'routes');
  const store = storeOf(dir, [
    ...Array.from({ length: 250 }, (_, index) => schedule(index)),
    schedule(250, 'z'.repeat(10_000)),
  ]);
  afterAll(() => store.close());
  const scheduler = new Scheduler({ store, deliver: async () => {}, logger: { warn: () => {} } });
  const api = createServeApi({
    routes: [
      ...scheduleRoutes(scheduler, () => 'default'),
      ...consoleRoutes({ mode: 'bundle', rootDir: () => dir, agents: () => ['helper'] }),
    ],
  });
  const get = async (path: string) => {
    const response = await api(new Request(`http://127.0.0.1${path}`));
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  type Page = { total: number; later: string | null; schedules: ScheduleRecord[] };

  test('both page the same way: the default page, a limit, the cursor, a limit past the maximum', async () => {
    for (const base of ['/v1/schedules', '/console/api/schedules']) {
      const first = (await get(base)).body as Page;
      expect({ base, total: first.total, shown: first.schedules.length }).toEqual({ base, total: 251, shown: 200 });
      const next = (await get(`${base}?after=${first.later}`)).body as Page;
      expect(next.schedules).toHaveLength(51);
      expect(next.later).toBeNull();
      expect(next.schedules.at(-1)!.input).toHaveLength(VALUE_CHARS);
      expect(next.schedules.at(-1)!).toMatchObject({ cutChars: 10_000 - VALUE_CHARS });
      const two = (await get(`${base}?limit=2`)).body as Page;
      expect(two.schedules.map((record) => record.id)).toEqual(['sch_test_00000', 'sch_test_00001']);
      expect(two.later).toBe('sch_test_00001');
      // A limit past the maximum is the maximum, as the other lists take it.
      expect(((await get(`${base}?limit=999999`)).body as Page).schedules).toHaveLength(251);
    }
  });

  test('bad paging is the structured 400 the other lists answer', async () => {
    for (const base of ['/v1/schedules', '/console/api/schedules']) {
      for (const query of [
        'limit=0',
        'limit=-1',
        'limit=1.5',
        'limit=abc',
        'limit=99999999999999999999',
        'limit=1&limit=2',
        'after=sch_nope',
        'after=%3Cscript%3E',
        `after=${'a'.repeat(200)}`,
        'afterr=sch_test_00001',
      ]) {
        const answer = await get(`${base}?${query}`);
        expect({ base, query, status: answer.status, body: answer.body }).toMatchObject({
          base,
          query,
          status: 400,
          body: {
            error: {
              code: 'E_SERVE_BAD_REQUEST',
              type: 'invalid_request_error',
              helpUrl: expect.stringContaining('E_SERVE_BAD_REQUEST'),
            },
          },
        });
      }
    }
  });

  test('GET /v1/schedules/ID has one schedule whole; an unknown one is 404 E_SCHEDULE_NOT_FOUND', async () => {
    const whole = await get('/v1/schedules/sch_test_00250');
    expect(whole.status).toBe(200);
    expect((whole.body.schedule as ScheduleRecord).input).toBe('z'.repeat(10_000));
    const missing = await get(`/v1/schedules/${'n'.repeat(5000)}`);
    expect(missing).toMatchObject({ status: 404, body: { error: { code: 'E_SCHEDULE_NOT_FOUND' } } });
    expect(JSON.stringify(missing.body).length).toBeLessThan(1000);
  });
});
