// gdn serve's graceful stop as a load balancer and a supervisor see it (real processes on loopback): while it drains
// the listener stays open, /healthz answers 503 `draining` with the turns still running, new work is refused with 503,
// Retry-After and E_AGENT_SHUTTING_DOWN, approvals of running turns are still answered, then it closes. And what a
// kill -9 keeps of what it had accepted: a 202 event is run after the restart, a waiting request that was queued is not.
import { Database } from 'bun:sqlite';
import { afterAll, afterEach, describe, expect, test } from 'bun:test';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { instancePaths } from '@goondan/core';
import { agentBundle, cleanupTempDirs, editBundle, scriptedModel, startGdn, waitUntil } from './helpers.ts';

afterAll(cleanupTempDirs);

const started: ReturnType<typeof startGdn>[] = [];
afterEach(() => {
  for (const server of started.splice(0)) server.proc.kill('SIGKILL');
});

/** Starts `gdn serve --port 0 ARGS` and resolves with its URL once it prints it. */
async function serve(bundle: string, args: string[] = []) {
  const server = startGdn(['serve', '--bundle', bundle, '--port', '0', ...args]);
  started.push(server);
  await server.waitForStderr('OpenAI-compatible base URL: ', 90_000);
  const url = /base URL: (\S+)\/v1/.exec(server.stderr)?.[1];
  if (!url) throw new Error(`no URL in:\n${server.stderr}`);
  return { server, url };
}

interface Health {
  status: string;
  runningTurns: number;
  instances: { agent: string; instanceKey: string; pid: number | null; queueDepth: number }[];
  scheduler: { activeSchedules: number } | null;
  draining?: { reason: string; since: string; graceEndsAt: string; acceptedEvents: number };
}

async function health(url: string): Promise<{ status: number; retryAfter: string | null; body: Health }> {
  const answer = await fetch(`${url}/healthz`);
  return {
    status: answer.status,
    retryAfter: answer.headers.get('retry-after'),
    body: (await answer.json()) as Health,
  };
}

function post(url: string, body: unknown, method = 'POST') {
  return fetch(url, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** A streamed chat completion to `helper`; `readUntil` reads it until its text holds `wanted`. */
async function streamedChat(url: string, content: string) {
  const response = await post(`${url}/v1/chat/completions`, {
    model: 'helper',
    stream: true,
    messages: [{ role: 'user', content }],
  });
  const reader = response.body!.getReader();
  let streamed = '';
  const text = () => [...streamed.matchAll(/"content":"([^"]*)"/g)].map((match) => match[1]).join('');
  return {
    async readUntil(wanted: string) {
      while (!text().includes(wanted)) {
        const chunk = await reader.read();
        if (chunk.done) throw new Error(`the stream ended first: ${streamed}`);
        streamed += new TextDecoder().decode(chunk.value);
      }
    },
  };
}

/** A tool of the test's own: waits until the file `path` exists (or the call is cancelled). */
const gateTool = `import { existsSync } from 'node:fs';
export const handlers = {
  wait: (ctx, input) =>
    new Promise((resolve, reject) => {
      const timer = setInterval(() => {
        if (!existsSync(input.path)) return;
        clearInterval(timer);
        resolve({ opened: true });
      }, 50);
      ctx.signal.addEventListener('abort', () => {
        clearInterval(timer);
        reject(new Error('cancelled at the gate'));
      });
    }),
};
`;

/** The agent fixture with Tool/gate, its model waiting at the gate and then answering. */
async function gatedBundle(): Promise<string> {
  const bundle = await agentBundle();
  await writeFile(join(bundle, 'tools', 'gate.ts'), gateTool);
  const gate = join(bundle, '.gate-open');
  const tool = [
    'apiVersion: goondan.ai/v1',
    'kind: Tool',
    'metadata:',
    '  name: gate',
    'spec:',
    '  entry: ./tools/gate.ts',
    '  timeoutMs: 200000',
    '  exports:',
    '    - name: wait',
    '      description: Waits until a file exists.',
    '      parameters:',
    '        type: object',
    '        properties:',
    '          path: { type: string }',
    '        required: [path]',
    '---',
    '',
  ].join('\n');
  const model = scriptedModel([
    { text: 'At the gate.', toolCalls: [{ name: 'gate__wait', args: { path: gate } }] },
    { text: 'Through the gate.' },
  ]);
  await editBundle(bundle, (text) => {
    const at = text.indexOf('# MODEL');
    return `${tool}${text.slice(0, at).replace('    - Tool/slow\n', '    - Tool/slow\n    - Tool/gate\n')}# MODEL\n${model}`;
  });
  return bundle;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('gdn serve draining', () => {
  test('SIGTERM: /healthz 503 draining with the running turn, new work 503 + Retry-After, the turn answers, then closed', async () => {
    // The turn waits in a tool until the test opens its gate: it runs as long as the test needs.
    const bundle = await gatedBundle();
    const gate = join(bundle, '.gate-open');
    const { server, url } = await serve(bundle, ['--grace', '120000']);
    const before = await health(url);
    expect({ status: before.status, body: before.body.status, running: before.body.runningTurns }).toEqual({
      status: 200,
      body: 'ok',
      running: 0,
    });
    const reply = await streamedChat(url, 'wait at the gate');
    await reply.readUntil('At the gate.');

    server.proc.kill('SIGTERM');
    await server.waitForStderr('[serve] SIGTERM', 60_000);
    let draining = await health(url);
    await waitUntil(
      async () => {
        draining = await health(url);
        return draining.status === 503;
      },
      '/healthz to answer 503',
      60_000,
    );
    expect(draining.body).toMatchObject({
      status: 'draining',
      runningTurns: 1,
      scheduler: null,
      draining: { reason: 'SIGTERM', acceptedEvents: 0 },
    });
    expect(Date.parse(draining.body.draining!.graceEndsAt)).toBeGreaterThan(Date.now());
    expect(Number(draining.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(draining.body.instances.map((info) => `${info.agent}/${info.instanceKey}`)).toEqual(['helper/default']);

    // New work: refused with a structured error, when to come back, and nothing stored.
    const refusals = await Promise.all([
      post(`${url}/v1/chat/completions`, { model: 'helper', messages: [{ role: 'user', content: 'new turn' }] }),
      post(`${url}/v1/agents/helper/instances/other/events`, { input: 'new event' }),
      post(`${url}/v1/agents/helper/instances/other/events`, { input: 'new event', wait: true }),
      post(`${url}/v1/schedules`, { agent: 'helper', inMs: 60_000, input: 'later' }),
      fetch(`${url}/v1/schedules`),
    ]);
    for (const refused of refusals) {
      const body = (await refused.json()) as { error: { code: string; type: string; message: string } };
      expect({
        status: refused.status,
        code: body.error.code,
        type: body.error.type,
        retry: refused.headers.get('x-should-retry'),
      }).toEqual({ status: 503, code: 'E_AGENT_SHUTTING_DOWN', type: 'server_error', retry: 'true' });
      expect(body.error.message).toContain('1 running turn(s)');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // Reads are still answered; the refused event left no instance behind.
    expect((await fetch(`${url}/v1/models`)).status).toBe(200);
    expect((await fetch(`${url}/v1/agents/helper/instances/other/conversation`)).status).toBe(404);

    // The running turn finishes and answers its client; then the host closes.
    await writeFile(gate, 'open');
    await reply.readUntil('Through the gate.');
    const ended = await server.finish();
    expect(ended.exitCode).toBe(143);
    expect(ended.stderr).toContain('[serve] stopped');
    expect(await fetch(`${url}/healthz`).catch((thrown: unknown) => thrown)).toBeInstanceOf(Error);
  }, 240_000);

  test('--drain-delay: with nothing running the listener stays open, /healthz 503 draining, until the delay', async () => {
    const bundle = await agentBundle(scriptedModel([{ text: 'unused' }]));
    // A delay far longer than a poll on a busy machine; the grace above it, so the delay is what holds the end.
    const { server, url } = await serve(bundle, ['--drain-delay', '8000', '--grace', '30000']);
    expect((await health(url)).status).toBe(200);
    server.proc.kill('SIGTERM');
    await server.waitForStderr('[serve] SIGTERM', 60_000);
    // Nothing runs, so without the delay the port would close at once; with it /healthz still answers, 503.
    const seen = await health(url);
    expect(seen.status).toBe(503);
    expect(seen.body.status).toBe('draining');
    expect(seen.body.runningTurns).toBe(0);
    const ended = await server.finish();
    expect(ended.exitCode).toBe(143);
    expect(await fetch(`${url}/healthz`).catch((thrown: unknown) => thrown)).toBeInstanceOf(Error);
  }, 120_000);

  test('--drain-delay that is not a whole number is a usage error (exit 2)', async () => {
    const bundle = await agentBundle(scriptedModel([{ text: 'unused' }]));
    const server = startGdn(['serve', '--bundle', bundle, '--port', '0', '--drain-delay', 'soon']);
    started.push(server);
    const ended = await server.finish();
    expect(ended.exitCode).toBe(2);
    expect(ended.stderr).toContain("--drain-delay must be a whole number, got 'soon'");
  }, 60_000);

  test('kill -9: an event answered 202 runs once after the restart; a waiting request that was queued is lost', async () => {
    const bundle = await agentBundle(
      scriptedModel([{ text: 'Waiting now.', toolCalls: [{ name: 'slow__wait', args: { ms: 55_000 } }] }]),
    );
    const first = await serve(bundle);
    const events = `${first.url}/v1/agents/helper/instances/default/events`;
    const running = post(events, { input: 'running-input', wait: true }).then(
      (answer) => answer.status,
      (thrown: unknown) => thrown,
    );
    await waitUntil(async () => (await health(first.url)).body.runningTurns === 1, 'the first turn to run', 60_000);
    // Another instance runs a fire-and-forget event when the host dies.
    const sent = await post(`${first.url}/v1/agents/helper/instances/sent/events`, { input: 'sent-running-input' });
    expect(sent.status).toBe(202);
    await waitUntil(async () => (await health(first.url)).body.runningTurns === 2, 'the sent event to run', 60_000);
    const queued = post(events, { input: 'queued-input', wait: true }).then(
      (answer) => answer.status,
      (thrown: unknown) => thrown,
    );
    const accepted = await post(events, { input: 'accepted-input' });
    expect(accepted.status).toBe(202);
    let agentPids: number[] = [];
    await waitUntil(
      async () => {
        const { instances } = (await health(first.url)).body;
        agentPids = instances.map((instance) => instance.pid ?? 0);
        return instances.find((instance) => instance.instanceKey === 'default')?.queueDepth === 2;
      },
      'both later inputs to wait behind the running turn',
      60_000,
    );

    first.server.proc.kill('SIGKILL');
    await first.server.finish();
    // The waiting clients see their connection end, without an answer.
    expect(await running).toBeInstanceOf(Error);
    expect(await queued).toBeInstanceOf(Error);
    // Its agent processes end with it (the instances' writer locks with them).
    await waitUntil(() => !agentPids.some(isAlive), 'the agent processes to end', 60_000);

    const second = await serve(bundle);
    /** The stored conversation of an instance, as one JSON text, once `until` holds for it. */
    const conversationOf = async (instance: string, until: (text: string) => boolean) => {
      let text = '';
      await waitUntil(
        async () => {
          const answer = await fetch(`${second.url}/v1/agents/helper/instances/${instance}/conversation`);
          if (answer.status === 200) text = JSON.stringify(((await answer.json()) as { messages: unknown[] }).messages);
          return until(text);
        },
        `the conversation of ${instance} after the restart`,
        90_000,
      );
      return text;
    };
    const count = (text: string, input: string) => text.split(input).length - 1;
    const waited = await conversationOf('default', (text) => text.includes('accepted-input'));
    // The waiting turn that was running is closed with a note, not run again; the queued waiting request is gone;
    // the event answered 202 runs.
    expect({
      running: count(waited, 'running-input'),
      queued: count(waited, 'queued-input'),
      accepted: count(waited, 'accepted-input'),
    }).toEqual({ running: 1, queued: 0, accepted: 1 });
    // Closed as interrupted: a note on the turn, or on the tool call it was in.
    const interrupted = /did not complete|The agent stopped before this tool call finished/;
    expect(waited).toMatch(interrupted);
    // A 202 event whose turn was running: its cut turn is closed, and the event, still in the inbox, is taken out of
    // it without running again (its input is in the conversation once).
    const { databaseFile } = instancePaths({ rootDir: bundle, agentName: 'helper', instanceKey: 'sent' });
    const inboxSize = () => {
      const db = new Database(databaseFile, { readonly: true });
      try {
        return db.query<{ n: number }, []>('SELECT count(*) AS n FROM inbox_events').get()!.n;
      } finally {
        db.close();
      }
    };
    const cut = await conversationOf('sent', (text) => interrupted.test(text) && inboxSize() === 0);
    expect(count(cut, 'sent-running-input')).toBe(1);
  }, 300_000);
});
