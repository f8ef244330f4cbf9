// An instance's directory deleted under a running `gdn serve`: the turn that finds it gone is refused with
// E_STORE_REMOVED (nothing written), its agent process is retired, and the next turn starts the instance afresh in a
// new process, its state on disk again.
import { afterAll, afterEach, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConversationStore, instancePaths, openInstanceDatabase } from '@goondan/core';
import { agentBundle, cleanupTempDirs, cliEnv, scriptedModel, startGdn, waitUntil } from './helpers.ts';

afterAll(cleanupTempDirs);

const started: ReturnType<typeof startGdn>[] = [];
afterEach(() => {
  for (const server of started.splice(0)) server.proc.kill('SIGKILL');
});

interface TurnJson {
  status?: string;
  text?: string;
  error?: { code: string; message: string };
}

async function turn(url: string, input: string): Promise<{ status: number; json: TurnJson }> {
  const response = await fetch(`${url}/v1/agents/helper/instances/default/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input, wait: true }),
  });
  return { status: response.status, json: (await response.json()) as TurnJson };
}

function send(url: string, input: string): Promise<Response> {
  return fetch(`${url}/v1/agents/helper/instances/default/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input }),
  });
}

function storedTurns(databaseFile: string): { role: string; text: string }[] {
  const db = openInstanceDatabase(databaseFile, { forReading: true });
  try {
    return new ConversationStore(db).load().map((message) => ({
      role: message.data.role,
      text: typeof message.data.content === 'string' ? message.data.content : JSON.stringify(message.data.content),
    }));
  } finally {
    db.close();
  }
}

test('the instance directory deleted under gdn serve: one turn is E_STORE_REMOVED, the next starts it afresh', async () => {
  const bundle = await agentBundle(scriptedModel([{ text: 'First answer.' }, { text: 'Second answer.' }]));
  const server = startGdn(['serve', '--bundle', bundle, '--port', '0'], { env: cliEnv() });
  started.push(server);
  await server.waitForStderr('OpenAI-compatible base URL: ', 60_000);
  const url = /base URL: (\S+)\/v1/.exec(server.stderr)?.[1];
  if (!url) throw new Error(`no URL in:\n${server.stderr}`);
  const { databaseFile } = instancePaths({ rootDir: bundle, agentName: 'helper', instanceKey: 'default' });
  const instanceDir = dirname(databaseFile);

  const first = await turn(url, 'one');
  expect(first.json).toMatchObject({ status: 'completed', text: 'First answer.' });
  expect(storedTurns(databaseFile).map((message) => message.role)).toEqual(['user', 'assistant']);

  await rm(instanceDir, { recursive: true, force: true });
  // The process that had it open finds its files gone: the turn is refused, not run into the deleted database.
  const refused = await turn(url, 'two');
  expect(refused.status).toBe(200);
  expect(refused.json.status).toBe('error');
  expect(refused.json.error?.code).toBe('E_STORE_REMOVED');
  expect(refused.json.error?.message).toContain('state.db is gone');
  expect(existsSync(instanceDir)).toBe(false);

  // A new agent process opens the instance as a first start would: empty, then this turn alone.
  const fresh = await turn(url, 'three');
  expect(fresh.json).toMatchObject({ status: 'completed' });
  expect(fresh.json.text).toBe('First answer.');
  expect(existsSync(databaseFile)).toBe(true);
  expect(storedTurns(databaseFile)).toEqual([
    { role: 'user', text: expect.stringContaining('three') },
    { role: 'assistant', text: expect.stringContaining('First answer.') },
  ]);
  // And it stays served: the turn after is the same instance's second, in the same process.
  const next = await turn(url, 'four');
  expect(next.json).toMatchObject({ status: 'completed', text: 'Second answer.' });
  expect(storedTurns(databaseFile).map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  expect(server.stderr).not.toMatch(/\n\s+at /);
});

test('a send after the deletion is not lost: stored in the new database, the new process handles it', async () => {
  const bundle = await agentBundle(scriptedModel([{ text: 'First answer.' }, { text: 'Second answer.' }]));
  const server = startGdn(['serve', '--bundle', bundle, '--port', '0'], { env: cliEnv() });
  started.push(server);
  await server.waitForStderr('OpenAI-compatible base URL: ', 60_000);
  const url = /base URL: (\S+)\/v1/.exec(server.stderr)?.[1];
  if (!url) throw new Error(`no URL in:\n${server.stderr}`);
  const { databaseFile } = instancePaths({ rootDir: bundle, agentName: 'helper', instanceKey: 'default' });

  // A send first: the server keeps the instance's database open to store the sends for it.
  expect((await send(url, 'sent first')).status).toBe(202);
  await waitUntil(
    () => existsSync(databaseFile) && storedTurns(databaseFile).some((message) => message.role === 'assistant'),
    'the first send answered',
  );
  await rm(dirname(databaseFile), { recursive: true, force: true });
  // Accepted (202) once stored: in a new database at the instance's path, not in the deleted one still open.
  expect((await send(url, 'sent after the deletion')).status).toBe(202);
  // The process that had the instance open refuses it (E_STORE_REMOVED); the new one finds it in its inbox.
  await waitUntil(
    () => existsSync(databaseFile) && storedTurns(databaseFile).some((message) => message.role === 'assistant'),
    'the send answered in the new database',
  );
  expect(storedTurns(databaseFile)).toEqual([
    { role: 'user', text: expect.stringContaining('sent after the deletion') },
    { role: 'assistant', text: expect.stringContaining('First answer.') },
  ]);
  const next = await turn(url, 'two');
  expect(next.json).toMatchObject({ status: 'completed', text: 'Second answer.' });
});
