// gdn serve's start and end as real processes: SIGTERM bounded by --grace even when an accepted event waits for an
// instance that cannot start, a second signal that kills at once, one gdn serve per bundle (the serve lock), a port
// in use and a bad --instance refused at start with coded errors.
import { afterAll, afterEach, describe, expect, test } from 'bun:test';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  agentBundle,
  cleanupTempDirs,
  cliEnv,
  gdnWithin,
  mainTs,
  scriptedModel,
  startGdn,
  waitUntil,
} from './helpers.ts';

afterAll(cleanupTempDirs);

const started: { kill(signal?: number | NodeJS.Signals): void }[] = [];
afterEach(() => {
  for (const proc of started.splice(0)) proc.kill('SIGKILL');
});

/** Starts `gdn serve --port 0 ARGS` and resolves with its URL once it prints it. */
async function serve(bundle: string, args: string[] = []) {
  const server = startGdn(['serve', '--bundle', bundle, '--port', '0', ...args]);
  started.push(server.proc);
  await server.waitForStderr('OpenAI-compatible base URL: ', 60_000);
  const url = /base URL: (\S+)\/v1/.exec(server.stderr)?.[1];
  if (!url) throw new Error(`no URL in:\n${server.stderr}`);
  return { server, url };
}

/** An ordinary `gdn chat` on the bundle, waiting for input: it holds the writer lock of helper/default. */
async function chatHoldingInstance(bundle: string) {
  const chat = Bun.spawn([process.execPath, mainTs, 'chat', '--bundle', bundle], {
    env: cliEnv(),
    stdin: 'pipe',
    stdout: 'ignore',
    stderr: 'ignore',
  });
  started.push(chat);
  const holderFile = join(bundle, '.goondan', 'instances', 'helper', 'default', 'writer.json');
  await waitUntil(
    async () => (await readFile(holderFile, 'utf8').catch(() => '')).includes(`"pid":${chat.pid}`),
    'gdn chat to hold the instance',
  );
  return chat;
}

async function postEvent(url: string) {
  const response = await fetch(`${url}/v1/agents/helper/instances/default/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', connection: 'close' },
    body: JSON.stringify({ input: 'hello' }),
  });
  expect(response.status).toBe(202);
}

/** A streamed chat completion to the fixture's `helper`; `readUntil` reads it until its text holds `wanted`. */
async function streamedChat(url: string) {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'helper', stream: true, messages: [{ role: 'user', content: 'wait' }] }),
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

describe('gdn serve start and shutdown', () => {
  test('SIGTERM ends within --grace while an accepted event waits for an instance that cannot start', async () => {
    const bundle = await agentBundle();
    await chatHoldingInstance(bundle);
    const { server, url } = await serve(bundle, ['--grace', '1000']);
    await postEvent(url);
    // The event is stored and its instance tries to start (and is refused by the chat's lock).
    await server.waitForStderr('could not start');
    const signalledAt = Date.now();
    server.proc.kill('SIGTERM');
    const result = await server.finish();
    const tookMs = Date.now() - signalledAt;
    expect(result.exitCode).toBe(143);
    // The orchestrator's own drain bound is 30 s; --grace 1000 must win (a margin for a loaded machine).
    expect(tookMs).toBeLessThan(8_000);
    expect(result.stderr).toContain('1 accepted event(s) not handled within the grace period');
    expect(result.stderr).toContain('[serve] stopped');
  }, 120_000);

  test('a second signal kills at once, while accepted events drain and while a turn runs', async () => {
    const bundle = await agentBundle();
    const chat = await chatHoldingInstance(bundle);
    const draining = await serve(bundle, ['--grace', '60000']);
    await postEvent(draining.url);
    await draining.server.waitForStderr('could not start');
    draining.server.proc.kill('SIGTERM');
    await draining.server.waitForStderr('[serve] SIGTERM');
    const drainSignalledAt = Date.now();
    draining.server.proc.kill('SIGINT');
    const drained = await draining.server.finish();
    expect(Date.now() - drainSignalledAt).toBeLessThan(8_000);
    expect(drained.exitCode).toBe(143);
    expect(drained.stderr).toContain('[serve] second signal: agents killed');
    chat.kill('SIGKILL');
    await chat.exited;

    // A turn that runs far longer than anyone waits: the second signal ends it.
    const slow = await agentBundle(
      scriptedModel([
        { text: 'Waiting now.', toolCalls: [{ name: 'slow__wait', args: { ms: 50_000 } }] },
        { text: 'Done.' },
      ]),
    );
    const running = await serve(slow, ['--grace', '60000']);
    const reply = await streamedChat(running.url);
    // The turn runs once its first text streams.
    await reply.readUntil('Waiting now.');
    running.server.proc.kill('SIGINT');
    await running.server.waitForStderr('[serve] SIGINT');
    const turnSignalledAt = Date.now();
    running.server.proc.kill('SIGTERM');
    const ended = await running.server.finish();
    expect(Date.now() - turnSignalledAt).toBeLessThan(8_000);
    expect(ended.exitCode).toBe(130);
  }, 180_000);

  test('SIGHUP (its terminal closed) drains like SIGTERM: the running turn answers its request, exit 129', async () => {
    const bundle = await agentBundle(
      scriptedModel([
        { text: 'Waiting now.', toolCalls: [{ name: 'slow__wait', args: { ms: 1500 } }] },
        { text: 'Answered after the hangup.' },
      ]),
    );
    const running = await serve(bundle, ['--grace', '60000']);
    const reply = await streamedChat(running.url);
    // The turn runs (its tool waits) when the terminal goes away.
    await reply.readUntil('Waiting now.');
    running.server.proc.kill('SIGHUP');
    await running.server.waitForStderr('[serve] SIGHUP: no new requests');
    await reply.readUntil('Answered after the hangup.');
    const ended = await running.server.finish();
    expect(ended.exitCode).toBe(129);
    expect(ended.stderr).toContain('[serve] stopped');
  }, 180_000);

  test('a second gdn serve of the bundle is refused naming the first; a lock left by a killed one is free', async () => {
    const bundle = await agentBundle();
    const first = await serve(bundle);
    // Before the fix it started too (gdnWithin kills it as hung).
    const refused = await gdnWithin(['serve', '--bundle', bundle, '--port', '0']);
    expect(refused.hung).toBe(false);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain('E_SERVE_BUNDLE_BUSY');
    expect(refused.stderr).toContain(`pid ${first.server.proc.pid} (gdn serve)`);
    expect(refused.stderr).not.toContain('serving helper');

    first.server.proc.kill('SIGKILL');
    await first.server.finish();
    const third = await serve(bundle, ['--grace', '1000']);
    third.server.proc.kill('SIGTERM');
    expect((await third.server.finish()).exitCode).toBe(143);
  }, 180_000);

  test('a port in use is E_SERVE_LISTEN_FAILED with a suggestion, not an unexpected failure', async () => {
    const bundle = await agentBundle();
    const taken = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('taken') });
    try {
      const result = await gdnWithin(['serve', '--bundle', bundle, '--port', String(taken.port)]);
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toContain(
        `E_SERVE_LISTEN_FAILED gdn serve cannot listen on 127.0.0.1:${taken.port}: the port is in use`,
      );
      expect(result.stderr).toContain('--port 0');
      expect(result.stderr).not.toContain('unexpected failure');
      expect(result.stderr).not.toMatch(/^\s+at /m);
      // The console and the MCP server over HTTP say the same, naming their own command and flag.
      for (const [args, command, flag] of [
        [['trace', '--serve', '--bundle', bundle, '--port', String(taken.port)], 'gdn trace --serve', '--port 0'],
        [['mcp', 'serve', '--bundle', bundle, '--http', String(taken.port)], 'gdn mcp serve', '--http 0'],
      ] as const) {
        const other = await gdnWithin([...args]);
        expect(other.exitCode).toBe(1);
        expect(other.stderr).toContain(`E_SERVE_LISTEN_FAILED ${command} cannot listen on 127.0.0.1:${taken.port}`);
        expect(other.stderr).toContain(flag);
        expect(other.stderr).not.toContain('unexpected failure');
      }
    } finally {
      taken.stop(true);
    }
  }, 120_000);

  test('an --instance that is not an instance key is refused at start', async () => {
    const bundle = await agentBundle();
    const result = await gdnWithin(['serve', '--bundle', bundle, '--port', '0', '--instance', '../../../escape']);
    expect(result.hung).toBe(false);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("E_INSTANCE_KEY_INVALID Instance key '../../../escape'");
    expect(result.stderr).not.toContain('serving helper');
  }, 120_000);
});
