// GET /v1/schedules and the console's schedules on a real `gdn serve` on loopback: 3,000 schedules of 15 KB inputs
// (46 MB in one answer before; 10,000 made 153 MB) come a page at a time, each small; bad paging is the usual coded 400; the console's
// view pages on and back in a browser (headless Chromium, as console.test.ts).
import { afterAll, afterEach, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { openScheduleStore, type ScheduleRecord, scheduleStorePath } from '@goondan/core';
import { chromium } from 'playwright-core';
import { agentBundle, cleanupTempDirs, cliEnv, startGdn } from './helpers.ts';

const CHROMIUM = '/usr/bin/chromium';

afterAll(cleanupTempDirs);

const started: ReturnType<typeof startGdn>[] = [];
afterEach(() => {
  for (const server of started.splice(0)) server.proc.kill('SIGKILL');
});

/** Starts `gdn serve --port 0` over `bundle`; resolves with its URL once it listens. */
async function serve(bundle: string) {
  const server = startGdn(['serve', '--bundle', bundle, '--port', '0'], { env: cliEnv() });
  started.push(server);
  await server.waitForStderr('OpenAI-compatible base URL: ', 60_000);
  return /base URL: (\S+)\/v1/.exec(server.stderr)![1]!;
}

const COUNT = 3_000;
const INPUT_CHARS = 15_000;

/** `count` schedules of `helper` far in the future (none fires), each with an input of INPUT_CHARS characters. */
function storeSchedules(bundle: string, count = COUNT): void {
  const path = scheduleStorePath({ rootDir: bundle });
  mkdirSync(dirname(path), { recursive: true });
  const store = openScheduleStore({ path });
  try {
    store.db.transaction(() => {
      for (let index = 0; index < count; index += 1) {
        store.insert({
          id: `sch_big_${String(index).padStart(5, '0')}`,
          agent: 'helper',
          instanceKey: `user${index % 7}`,
          kind: 'at',
          expression: '2099-01-01T00:00:00.000Z',
          timeZone: 'UTC',
          label: `reminder ${index}`,
          input: `${index} `.padEnd(INPUT_CHARS, 'x'),
          missedPolicy: 'fire-once-late',
          status: 'active',
          nextDueAt: 4_070_908_800_000 + index * 1000,
          lastFiredAt: null,
          createdAt: Date.now(),
        } satisfies ScheduleRecord);
      }
    })();
  } finally {
    store.close();
  }
}

type Page = { total: number; later: string | null; schedules: (ScheduleRecord & { cutChars?: number })[] };

describe('gdn serve: schedules a page at a time', () => {
  test('3,000 schedules of 15 KB: every page is small, paging on reaches each once; one is whole by id; bad paging is 400', async () => {
    const bundle = await agentBundle();
    storeSchedules(bundle);
    const url = await serve(bundle);

    for (const base of ['/v1/schedules', '/console/api/schedules']) {
      const seen = new Set<string>();
      let later: string | null = null;
      let pages = 0;
      let largest = 0;
      do {
        const answer = await fetch(`${url}${base}${later === null ? '' : `?after=${later}`}`);
        expect(answer.status).toBe(200);
        const text = await answer.text();
        largest = Math.max(largest, text.length);
        const page = JSON.parse(text) as Page;
        expect(page.total).toBe(COUNT);
        for (const schedule of page.schedules) {
          expect(schedule.input.length).toBeLessThan(INPUT_CHARS);
          expect(schedule.cutChars).toBeGreaterThan(0);
          seen.add(schedule.id);
        }
        later = page.later;
        pages += 1;
        // The console pages the same way; three of its pages are enough to say so.
      } while (later !== null && pages < (base === '/v1/schedules' ? 200 : 3));
      const whole = base === '/v1/schedules' ? { seen: COUNT, pages: COUNT / 200 } : { seen: 600, pages: 3 };
      expect({ base, seen: seen.size, pages }).toEqual({ base, ...whole });
      // A page of 200 cut schedules is about half a megabyte, not the whole 46 MB.
      expect(largest).toBeLessThan(1_100_000);
      // The largest page allowed (5,000) still stops near 1 MB.
      const most = await (await fetch(`${url}${base}?limit=1000000`)).text();
      expect(most.length).toBeLessThan(1_100_000);
      expect((JSON.parse(most) as Page).later).not.toBeNull();
    }

    // The filters of the list hold with the paging.
    const filtered = (await (await fetch(`${url}/v1/schedules?instance=user3&limit=5`)).json()) as Page;
    expect(filtered.total).toBe(Math.ceil((COUNT - 3) / 7));
    expect(filtered.schedules.map((schedule) => schedule.instanceKey)).toEqual(Array(5).fill('user3'));

    // One schedule whole, by id.
    const one = await fetch(`${url}/v1/schedules/sch_big_02321`);
    expect(one.status).toBe(200);
    const { schedule } = (await one.json()) as { schedule: ScheduleRecord };
    expect(schedule.input).toHaveLength(INPUT_CHARS);
    expect(schedule.input.startsWith('2321 ')).toBe(true);
    const unknown = await fetch(`${url}/v1/schedules/sch_nope`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('E_SCHEDULE_NOT_FOUND');

    for (const base of ['/v1/schedules', '/console/api/schedules']) {
      for (const query of [
        'limit=0',
        'limit=-1',
        'limit=99999999999999999999',
        'limit=ten',
        'after=sch_nope',
        'after=garbage%00%ff',
        `after=${'c'.repeat(300)}`,
        'limit=5&limit=6',
      ]) {
        const answer = await fetch(`${url}${base}?${query}`);
        const body = (await answer.json()) as { error: { code: string; type: string; message: string } };
        expect({ base, query, status: answer.status, code: body.error.code, type: body.error.type }).toEqual({
          base,
          query,
          status: 400,
          code: 'E_SERVE_BAD_REQUEST',
          type: 'invalid_request_error',
        });
        expect(body.error.message.length).toBeLessThan(300);
      }
    }
  }, 180_000);

  test('the console view: 200 a page, Later schedules pages on, First schedules back; inputs shown cut', async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install the Debian package chromium.`);
    const bundle = await agentBundle();
    storeSchedules(bundle, 450);
    const url = await serve(bundle);
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    try {
      const page = await browser.newPage();
      await page.goto(`${url}/console#/schedules`);
      await page.getByText('450 schedules; the first 200 shown.').waitFor();
      expect(await page.locator('tbody tr').count()).toBe(200);
      expect(await page.locator('tbody tr').first().locator('td').first().textContent()).toBe('reminder 0');
      await page
        .locator('tbody tr')
        .first()
        .getByText(/more characters not shown here/)
        .waitFor();
      await page.getByRole('link', { name: 'Later schedules' }).click();
      await page.getByText('450 schedules; 200 shown, after an earlier page.').waitFor();
      expect(await page.locator('tbody tr').first().locator('td').first().textContent()).toBe('reminder 200');
      await page.getByRole('link', { name: 'Later schedules' }).click();
      await page.getByText('450 schedules; 50 shown, after an earlier page.').waitFor();
      expect(await page.getByRole('link', { name: 'Later schedules' }).count()).toBe(0);
      await page.getByRole('link', { name: 'First schedules' }).click();
      await page.getByText('450 schedules; the first 200 shown.').waitFor();
      // A cursor typed by hand that names no schedule shows the coded error, not a page stuck loading.
      await page.goto(`${url}/console#/schedules?after=sch_nope`);
      await page.getByRole('alert').getByText('E_SERVE_BAD_REQUEST').waitFor();
    } finally {
      await browser.close();
    }
  }, 120_000);
});
