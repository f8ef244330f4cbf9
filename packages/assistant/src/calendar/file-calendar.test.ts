import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const bundle = mkdtempSync(join(tmpdir(), 'file-calendar-'));
afterAll(() => rmSync(bundle, { recursive: true, force: true }));

const EVENTS_EACH = 25;

/** A process that adds EVENTS_EACH events to the bundle's calendar.ics once it reads a line: both start together. */
function writer(tag: string) {
  const script = `
    import { createTestToolContext } from '@goondan/core/testing';
    import { handlers } from ${JSON.stringify(join(import.meta.dir, '..', '..', 'tools', 'calendar', 'index.ts'))};
    const ctx = createTestToolContext({
      workdir: ${JSON.stringify(join(bundle, '.goondan', 'workspaces', 'a', 'default'))},
      config: { backend: 'file', file: 'calendar.ics', timeZone: 'Asia/Seoul' },
    });
    console.log('ready');
    for await (const _ of console) break;
    for (let i = 0; i < ${EVENTS_EACH}; i++)
      await handlers.create_event(ctx, { title: '${tag}-' + i, start_date: '2027-01-05T10:00:00+09:00' });
    console.log('done');
  `;
  const child = Bun.spawn([process.execPath, '-e', script], {
    cwd: join(import.meta.dir, '..', '..'),
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'inherit',
  });
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const next = async () => (await lines.read()).value?.trim();
  return { child, next };
}

describe('a calendar file written by two processes at once', () => {
  test('keeps every event of both (each change holds the file lock from its read to its rename)', async () => {
    const writers = [writer('A'), writer('B')];
    for (const each of writers) expect(await each.next()).toBe('ready');
    for (const each of writers) {
      each.child.stdin.write('go\n');
      each.child.stdin.end();
    }
    for (const each of writers) expect(await each.child.exited).toBe(0);
    const titles = readFileSync(join(bundle, 'calendar.ics'), 'utf8').match(/^SUMMARY:.*$/gm) ?? [];
    expect(titles.length).toBe(2 * EVENTS_EACH);
  });
});
