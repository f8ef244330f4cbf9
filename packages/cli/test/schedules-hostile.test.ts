// gdn schedules and gdn serve's scheduler probed as a hostile user and a crashing machine would: stored escape
// sequences, serve killed with SIGKILL as a firing is taken, schedules added by other processes while it runs,
// and a schedule whose agent left the bundle.
import { Database } from 'bun:sqlite';
import { afterAll, afterEach, describe, expect, test } from 'bun:test';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeFiring } from '../src/chat-scheduler.ts';
import {
  agentBundle,
  cleanupTempDirs,
  cliEnv,
  editBundle,
  gdn,
  gdnJson,
  hangDeadlineMs,
  mainTs,
  scriptedModel,
  startGdn,
  waitUntil,
} from './helpers.ts';

afterAll(cleanupTempDirs);
const started: ReturnType<typeof startGdn>[] = [];
afterEach(async () => {
  for (const server of started.splice(0)) {
    if (server.proc.exitCode === null && server.proc.signalCode === null) server.proc.kill('SIGKILL');
    await server.finish();
  }
});

async function serve(bundle: string, args: string[] = []) {
  const server = startGdn(['serve', '--bundle', bundle, '--port', '0', ...args], { env: cliEnv() });
  started.push(server);
  await server.waitForStderr('OpenAI-compatible base URL: ', 60_000);
  const url = /base URL: (\S+)\/v1/.exec(server.stderr)?.[1];
  if (!url) throw new Error(`no URL in:\n${server.stderr}`);
  return { server, url };
}

interface Message {
  role: string;
  content: unknown;
  source?: { kind: string; name: string };
}

async function conversation(url: string, agent = 'helper', key = 'default'): Promise<Message[]> {
  const response = await fetch(`${url}/v1/agents/${agent}/instances/${key}/conversation`);
  if (response.status !== 200) return [];
  return ((await response.json()) as { messages: Message[] }).messages;
}

/** A message's text, whether a string or parts. */
const text = (message: Message): string =>
  typeof message.content === 'string'
    ? message.content
    : (message.content as { text?: string }[]).map((part) => part.text ?? '').join('');

/** Rows of the bundle's schedules.db, read over a connection of the test's own (as another process would). */
function firings(bundle: string): { event_id: string; status: string }[] {
  const db = new Database(join(bundle, '.goondan', 'schedules.db'), { readonly: true });
  try {
    return db.query<{ event_id: string; status: string }, []>('SELECT event_id, status FROM schedule_firings').all();
  } catch {
    return []; // not created yet
  } finally {
    db.close();
  }
}

describe('gdn schedules: what a schedule holds is shown, not obeyed', () => {
  test('a label with escape sequences and a forged line prints as one harmless line; --json keeps it', async () => {
    const bundle = await agentBundle(scriptedModel([{ text: 'unused' }]));
    const label = '\u001b[2J\u001b]0;pwned\u0007tea\nsch_forged  helper/default  next 2000-01-01  once (UTC)  forged';
    const added = await gdn(['schedules', 'add', '--bundle', bundle, '--in', '10m', '--label', label, '--input', 'x']);
    expect(added.exitCode).toBe(0);
    expect(added.stdout).not.toContain('\u001b');
    const list = await gdn(['schedules', 'list', '--bundle', bundle]);
    expect(list.exitCode).toBe(0);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
    expect(list.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(list.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(list.stdout).toContain('\ufffd[2J\ufffd]0;pwned\ufffdtea⏎sch_forged');
    const json = await gdnJson<{ label: string }[]>(['schedules', 'list', '--json', '--bundle', bundle]);
    expect(json.json[0]?.label).toBe(label);
    // An id of kilobytes with an escape in it is refused, quoted short and harmless.
    const cancel = await gdn(['schedules', 'cancel', `\u001b[31m${'x'.repeat(5000)}`, '--bundle', bundle]);
    expect(cancel.exitCode).toBe(1);
    expect(cancel.stderr).toStartWith('E_SCHEDULE_NOT_FOUND');
    expect(cancel.stderr).not.toContain('\u001b');
    expect(cancel.stderr.length).toBeLessThan(1000);
  }, 120_000);
});

test("the chat's alarm line shows a stored label harmless, on one line", () => {
  const line = describeFiring({
    id: 'sched_x_1',
    type: 'schedule.fired',
    input: 'x',
    source: { kind: 'system', name: 'scheduler' },
    data: { label: '\u001b[2Jtea\nhelper> forged reply', scheduledAt: '2026-01-10T09:00:00.000Z' },
    createdAt: '2026-01-10T09:00:00.000Z',
  });
  expect(line).toStartWith("(alarm '\ufffd[2Jtea⏎helper> forged reply' — due ");
  expect(line).not.toContain('\n');
});

describe('gdn serve: the scheduler across crashes and other writers', () => {
  test('gdn schedules add while another process holds schedules.db locked is E_STORE_OPEN, not a stack trace', async () => {
    const bundle = await agentBundle(scriptedModel([{ text: 'unused' }]));
    expect((await gdn(['schedules', 'add', '--bundle', bundle, '--in', '10m', '--input', 'first'])).exitCode).toBe(0);
    const holder = Bun.spawn(
      [
        process.execPath,
        '-e',
        `const { Database } = require('bun:sqlite');
         const db = new Database(${JSON.stringify(join(bundle, '.goondan', 'schedules.db'))});
         db.run('BEGIN IMMEDIATE');
         db.run("UPDATE schedules SET label = label WHERE id = 'none'");
         console.log('locked');
         setInterval(() => {}, 1000);`,
      ],
      { stdout: 'pipe', stderr: 'inherit' },
    );
    try {
      await holder.stdout.getReader().read(); // 'locked'
      const add = await gdn(['schedules', 'add', '--bundle', bundle, '--in', '10m', '--input', 'second']);
      expect(add.exitCode).toBe(1);
      expect(add.stderr).toStartWith('E_STORE_OPEN Schedule database ');
      expect(add.stderr).toContain('the schedule was not added');
      expect(add.stderr).not.toContain('unexpected failure');
    } finally {
      holder.kill('SIGKILL');
      await holder.exited;
    }
    const list = await gdnJson<{ input: string }[]>(['schedules', 'list', '--json', '--bundle', bundle]);
    expect(list.json.map((record) => record.input)).toEqual(['first']);
  }, 120_000);

  test('killed with SIGKILL as a firing is taken, then restarted: the due run happens exactly once', async () => {
    const bundle = await agentBundle(scriptedModel([{ text: 'Stretched.' }, { text: 'a second turn' }]));
    const { server } = await serve(bundle);
    const added = await gdnJson<{ id: string }>([
      'schedules',
      'add',
      '--bundle',
      bundle,
      '--in',
      '1s',
      '--label',
      'stretch',
      '--input',
      'Time to stretch.',
      '--json',
    ]);
    expect(added.result.exitCode).toBe(0);
    // The moment the firing row is written (taken, maybe not yet in the inbox, maybe already run).
    await waitUntil(() => firings(bundle).length > 0, 'the firing row', 60_000);
    server.proc.kill('SIGKILL');
    await server.finish();
    const again = await serve(bundle);
    await waitUntil(
      async () => (await conversation(again.url)).some((message) => message.role === 'assistant'),
      'the scheduled turn',
      60_000,
    );
    await waitUntil(() => firings(bundle).every((row) => row.status === 'delivered'), 'delivered', 60_000);
    const messages = await conversation(again.url);
    expect(messages.filter((message) => message.role === 'user').map(text)).toEqual(['Time to stretch.']);
    expect(messages.filter((message) => message.role === 'assistant').map(text)).toEqual(['Stretched.']);
    expect(firings(bundle)).toHaveLength(1);
    const list = await gdnJson<{ status: string }[]>(['schedules', 'list', '--all', '--json', '--bundle', bundle]);
    expect(list.json.map((record) => record.status)).toEqual(['done']);
  }, 240_000);

  test('schedules added by several gdn schedules add at once while serve runs are all stored and each fires once', async () => {
    const count = 6;
    const bundle = await agentBundle(
      scriptedModel(Array.from({ length: count }, (_, index) => ({ text: `answer ${index}` }))),
    );
    const { url } = await serve(bundle);
    const adds = await Promise.all(
      Array.from({ length: count }, (_, index) =>
        gdn(['schedules', 'add', '--bundle', bundle, '--in', '1s', '--input', `alarm ${index}`]),
      ),
    );
    expect(adds.map((result) => [result.exitCode, result.stderr])).toEqual(adds.map(() => [0, '']));
    await waitUntil(
      async () => (await conversation(url)).filter((message) => message.role === 'assistant').length === count,
      `${count} scheduled turns`,
      120_000,
    );
    const users = (await conversation(url)).filter((message) => message.role === 'user').map(text);
    expect(users.toSorted()).toEqual(Array.from({ length: count }, (_, index) => `alarm ${index}`));
    expect(firings(bundle)).toHaveLength(count);
  }, 240_000);

  test('a schedule whose agent a live reload removed (gdn serve --watch) is dropped with one warning, not one a firing', async () => {
    const bundle = await agentBundle(
      scriptedModel(Array.from({ length: 20 }, (_, index) => ({ text: `tick ${index}` }))),
    );
    const { server, url } = await serve(bundle, ['--watch']);
    await server.waitForStderr('[watch] watching', 60_000);
    const added = await gdnJson<{ id: string }>([
      'schedules',
      'add',
      '--bundle',
      bundle,
      '--cron',
      '* * * * * *',
      '--input',
      'every second',
      '--json',
    ]);
    expect(added.result.exitCode).toBe(0);
    await waitUntil(
      async () => (await conversation(url)).some((message) => message.role === 'assistant'),
      'a turn of the schedule',
      60_000,
    );
    await editBundle(bundle, (yaml) => yaml.replace(/name: helper\b/, 'name: renamed'));
    await server.waitForStderr('dropped (E_AGENT_UNKNOWN', 60_000);
    const lastFired = () => {
      const db = new Database(join(bundle, '.goondan', 'schedules.db'), { readonly: true });
      try {
        return db
          .query<{ at: number }, [string]>('SELECT last_fired_at AS at FROM schedules WHERE id = ?')
          .get(added.json.id)!.at;
      } finally {
        db.close();
      }
    };
    // Two more firings taken (and dropped) after the warning: still the one warning, and the host runs on.
    const firstDrop = lastFired();
    await waitUntil(() => lastFired() >= firstDrop + 2000, 'two more firings', 60_000);
    expect(server.stderr.split('dropped (E_AGENT_UNKNOWN')).toHaveLength(2);
    expect(server.stderr).toContain(`later firings of schedule ${added.json.id} are dropped without a warning`);
    expect(server.proc.exitCode).toBeNull();
    const cancel = await gdn(['schedules', 'cancel', added.json.id, '--bundle', bundle]);
    expect(cancel.exitCode).toBe(0);
  }, 240_000);
});

describe('gdn chat: an alarm that comes due as the chat ends', () => {
  test('queued behind a turn waiting for approval, then input ends: chat leaves at once, the firing kept for later', async () => {
    const bundle = await agentBundle(
      scriptedModel([{ toolCalls: [{ name: 'bash__exec', args: { command: 'echo hi' } }] }, { text: 'Done.' }]),
    );
    const chat = Bun.spawn([process.execPath, mainTs, 'chat', '--bundle', bundle], {
      cwd: tmpdir(),
      env: cliEnv(),
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
    });
    let hung = false;
    const guard = setTimeout(() => {
      hung = true;
      chat.kill('SIGKILL');
    }, hangDeadlineMs);
    let stdout = '';
    const reading = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of chat.stdout) stdout += decoder.decode(chunk, { stream: true });
    })();
    try {
      chat.stdin.write('run it\n');
      chat.stdin.flush();
      await waitUntil(() => stdout.includes('? approval needed'), 'the approval question', 60_000);
      const added = await gdn(['schedules', 'add', '--bundle', bundle, '--in', '1s', '--input', 'Tea time.']);
      expect(added.exitCode).toBe(0);
      // The chat's scheduler took it: it waits behind the turn that waits for the approval.
      await waitUntil(() => firings(bundle).length > 0, 'the firing taken by the chat', 60_000);
      chat.stdin.end();
      await chat.exited;
      await reading;
    } finally {
      clearTimeout(guard);
    }
    expect(hung).toBe(false);
    expect(chat.exitCode).toBe(0);
    expect(stdout).toContain('approval(s) still pending');
    expect(stdout).not.toContain('Tea time.');
    // Not lost: still to deliver, for the next gdn chat or gdn serve of the bundle.
    expect(firings(bundle).map((row) => row.status)).toEqual(['delivering']);
  }, 120_000);
});
