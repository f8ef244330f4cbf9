// `<bundle>/.goondan` deleted under a running `gdn serve`: its scheduler kept its schedules.db open and went on
// writing into the unlinked file, so a schedule added after the deletion was lost at the next start, and one a
// `gdn schedules add` stored in the new file never fired. The server opens the file at its path again (created
// afresh), says so once on stderr, and what is added from then on is stored there and fires.
import { Database } from 'bun:sqlite';
import { afterAll, afterEach, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ConversationStore, instancePaths, openInstanceDatabase, scheduleStorePath } from '@goondan/core';
import { agentBundle, cleanupTempDirs, cliEnv, gdn, scriptedModel, startGdn, waitUntil } from './helpers.ts';

afterAll(cleanupTempDirs);

const started: ReturnType<typeof startGdn>[] = [];
afterEach(() => {
  for (const server of started.splice(0)) server.proc.kill('SIGKILL');
});

async function serve(bundle: string) {
  const server = startGdn(['serve', '--bundle', bundle, '--port', '0'], { env: cliEnv() });
  started.push(server);
  await server.waitForStderr('OpenAI-compatible base URL: ', 60_000);
  const url = /base URL: (\S+)\/v1/.exec(server.stderr)?.[1];
  if (!url) throw new Error(`no URL in:\n${server.stderr}`);
  return { server, url };
}

async function addSchedule(url: string, body: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${url}/v1/schedules`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ agent: 'helper', ...body }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { schedule: { id: string } }).schedule.id;
}

/** The schedules and firings in the file on disk now (read as another process would at the next start). */
function onDisk(bundle: string): { schedules: { id: string; status: string }[]; firings: { status: string }[] } {
  const path = scheduleStorePath({ rootDir: bundle });
  if (!existsSync(path)) return { schedules: [], firings: [] };
  const db = new Database(path, { readonly: true });
  try {
    return {
      schedules: db.query<{ id: string; status: string }, []>('SELECT id, status FROM schedules ORDER BY id').all(),
      firings: db.query<{ status: string }, []>('SELECT status FROM schedule_firings').all(),
    };
  } catch {
    return { schedules: [], firings: [] };
  } finally {
    db.close();
  }
}

function storedTurns(bundle: string): { role: string; text: string }[] {
  const { databaseFile } = instancePaths({ rootDir: bundle, agentName: 'helper', instanceKey: 'default' });
  if (!existsSync(databaseFile)) return [];
  const db = openInstanceDatabase(databaseFile, { forReading: true });
  try {
    return new ConversationStore(db).load().map((message) => ({
      role: message.data.role,
      text: typeof message.data.content === 'string' ? message.data.content : JSON.stringify(message.data.content),
    }));
  } catch {
    return [];
  } finally {
    db.close();
  }
}

const REOPENED = 'opened it again at its path';

test('.goondan deleted under gdn serve: a schedule added over HTTP after it is in the new schedules.db and fires', async () => {
  const bundle = await agentBundle(scriptedModel([{ text: 'Reminded.' }, { text: 'Again.' }]));
  const { server, url } = await serve(bundle);

  const before = await addSchedule(url, { inMs: 3_600_000, input: 'added before the deletion' });
  expect(onDisk(bundle).schedules.map((row) => row.id)).toEqual([before]);

  await rm(join(bundle, '.goondan'), { recursive: true, force: true });
  const after = await addSchedule(url, { inMs: 300, input: 'added after the deletion' });
  await server.waitForStderr(REOPENED);
  // Stored in a file at the path (the old one, and what it held, is gone), not in the deleted one still open.
  expect(onDisk(bundle).schedules.map((row) => row.id)).toEqual([after]);

  // It fires: a turn of the instance runs on it, and its firing is marked delivered in the new file.
  await waitUntil(() => storedTurns(bundle).some((message) => message.role === 'assistant'), 'the schedule fired');
  await waitUntil(() => onDisk(bundle).firings.some((row) => row.status === 'delivered'), 'the firing delivered');
  expect(onDisk(bundle)).toEqual({ schedules: [{ id: after, status: 'done' }], firings: [{ status: 'delivered' }] });
  expect(storedTurns(bundle)).toEqual([
    { role: 'user', text: expect.stringContaining('added after the deletion') },
    { role: 'assistant', text: expect.stringContaining('Reminded.') },
  ]);
  // Listed by the server from the same file; said once on stderr.
  const listed = (await (await fetch(`${url}/v1/schedules?status=all`)).json()) as { schedules: { id: string }[] };
  expect(listed.schedules.map((schedule) => schedule.id)).toEqual([after]);
  expect(server.stderr.split(REOPENED).length - 1).toBe(1);
  expect(server.stderr).not.toMatch(/\n\s+at /);
});

test('.goondan deleted under gdn serve: a schedule gdn schedules add stores in the new file fires', async () => {
  const bundle = await agentBundle(scriptedModel([{ text: 'Reminded.' }]));
  const { server, url } = await serve(bundle);
  await addSchedule(url, { inMs: 3_600_000, input: 'added before the deletion' });

  await rm(join(bundle, '.goondan'), { recursive: true, force: true });
  // Another process creates the file afresh at its path; the server's scheduler must read that one.
  const added = await gdn(['schedules', 'add', '--bundle', bundle, '--in', '1s', '--input', 'added by the CLI']);
  expect(added.exitCode).toBe(0);
  await waitUntil(() => storedTurns(bundle).some((message) => message.role === 'assistant'), 'the schedule fired');
  expect(storedTurns(bundle)[0]?.text).toContain('added by the CLI');
  await waitUntil(() => onDisk(bundle).firings.some((row) => row.status === 'delivered'), 'the firing delivered');
  expect(onDisk(bundle).schedules.map((row) => row.status)).toEqual(['done']);
  expect(server.stderr).toContain(REOPENED);
});
