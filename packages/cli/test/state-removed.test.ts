// The state directory deleted under a running `gdn chat`: the next turn is refused with E_STORE_REMOVED (it was
// run and written into the deleted database, silently lost), the chat goes on to /exit, and a new run starts afresh.
import { afterAll, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ConversationStore, instancePaths, openInstanceDatabase } from '@goondan/core';
import { agentBundle, cleanupTempDirs, cliEnv, gdn, hangDeadlineMs, mainTs, scriptedModel } from './helpers.ts';

afterAll(cleanupTempDirs);

test('rm -rf .goondan under gdn chat: the next turn is E_STORE_REMOVED, not lost; gdn run then starts afresh', async () => {
  const bundle = await agentBundle(scriptedModel([{ text: 'First answer.' }, { text: 'Second answer.' }]));
  const proc = Bun.spawn([process.execPath, mainTs, 'chat', '--bundle', bundle], {
    env: cliEnv(),
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const timer = setTimeout(() => proc.kill('SIGKILL'), hangDeadlineMs);
  let stdout = '';
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout) stdout += decoder.decode(chunk, { stream: true });
  })();
  const stderr = new Response(proc.stderr).text();
  const write = (text: string) => {
    proc.stdin.write(text);
    proc.stdin.flush();
  };
  const waitFor = async (text: string) => {
    const deadline = Date.now() + 30_000;
    while (!stdout.includes(text)) {
      if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`no '${text}' on stdout:\n${stdout}`);
      await Bun.sleep(10);
    }
  };
  try {
    write('one\n');
    await waitFor('First answer.');
    // The chat's scheduler opens .goondan/schedules.db again when it is deleted, which can make the directory anew
    // while rm walks it (rm then left the instance's files in place, and the next turn rightly ran): deleted until
    // the instance's database is gone.
    const { databaseFile } = instancePaths({ rootDir: bundle, agentName: 'helper', instanceKey: 'default' });
    const deadline = Date.now() + 30_000;
    while (existsSync(databaseFile) && Date.now() < deadline) {
      await rm(join(bundle, '.goondan'), { recursive: true, force: true }).catch(() => {});
    }
    expect(existsSync(databaseFile)).toBe(false);
    write('two\n');
    await waitFor('E_STORE_REMOVED');
    write('/exit\n');
    await proc.exited;
  } finally {
    clearTimeout(timer);
    proc.kill('SIGKILL');
  }
  await reading;
  expect(proc.exitCode).toBe(0);
  expect(stdout).not.toContain('Second answer.');
  expect(stdout).toContain('state.db is gone');
  expect(stdout).toContain('suggestion: Start the command again');
  expect(await stderr).not.toMatch(/\n\s+at /);
  // Nothing was made again by the refused turn; the next run opens the instance afresh and answers.
  const next = await gdn(['run', '--bundle', bundle, '--input', 'three']);
  expect(next.exitCode).toBe(0);
  expect(next.stdout).toContain('First answer.');
  const { databaseFile } = instancePaths({ rootDir: bundle, agentName: 'helper', instanceKey: 'default' });
  const db = openInstanceDatabase(databaseFile);
  try {
    expect(new ConversationStore(db).load().map((message) => message.data.role)).toEqual(['user', 'assistant']);
  } finally {
    db.close();
  }
});
