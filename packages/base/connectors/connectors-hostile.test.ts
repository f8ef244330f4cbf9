// Hostile and edge inputs for the connectors (docs/connectors.md): Connector/slack run in-process with a recording
// ConnectorContext, a signed Events API sender and a fake Slack Web API on loopback; and the connector runner
// process, whose own log lines must mask the Connection's secrets like ctx.logger does; Connector/telegram in that
// process against a fake Bot API that refuses its token.
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type FakeBotApi, startFakeBotApi } from '../test/fake-bot-api.ts';
import { postSlackEvent } from '../test/fake-slack.ts';
import type { ConnectorContext, ConnectorEvent, ConnectorReply } from './runtime/connector-types.ts';
import slack from './slack/index.ts';

const SIGNING_SECRET = 'hostile-signing-secret-41';
const BOT_TOKEN = 'xoxb-hostile-token';

/** A fake Slack Web API: chat.postMessage answers 429 (Retry-After: 1) `limited` times, then { ok: true }. */
function fakeWebApi(limited: number) {
  const calls: { at: number; status: number; body: Record<string, unknown> }[] = [];
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const body = (await request.json()) as Record<string, unknown>;
      if (limited > 0) {
        limited--;
        calls.push({ at: Date.now(), status: 429, body });
        return Response.json({ ok: false, error: 'ratelimited' }, { status: 429, headers: { 'retry-after': '1' } });
      }
      calls.push({ at: Date.now(), status: 200, body });
      return Response.json({ ok: true, ts: '1.1' });
    },
  });
  return { calls, apiRoot: `http://127.0.0.1:${server.port}/api`, stop: () => server.stop(true) };
}

/**
 * Runs Connector/slack with a context that records what it emits and lets the test hand it replies; while
 * `refusing()` holds, emit is refused as the host refuses it at shutdown.
 */
async function startSlack(apiRoot: string, refusing: () => boolean = () => false) {
  const emitted: ConnectorEvent[] = [];
  const replyHandlers: ((reply: ConnectorReply) => void | Promise<void>)[] = [];
  const lines: string[] = [];
  const abort = new AbortController();
  const log = (...parts: unknown[]) => lines.push(parts.map(String).join(' '));
  const ctx: ConnectorContext = {
    connection: 'slack-hostile',
    connector: 'slack',
    secrets: { SLACK_SIGNING_SECRET: SIGNING_SECRET, SLACK_BOT_TOKEN: BOT_TOKEN },
    config: { PORT: '0', API_ROOT: apiRoot },
    async emit(event) {
      if (refusing())
        throw Object.assign(new Error('gdn serve takes no more events'), { code: 'E_AGENT_SHUTTING_DOWN' });
      emitted.push(event);
    },
    onReply: (handler) => void replyHandlers.push(handler),
    onApproval: () => {},
    answerApproval: async () => false,
    oauth: { getAccessToken: async () => ({ status: 'error' }) as never, onGranted: () => {} },
    logger: { info: log, warn: log, error: log },
    quiesced: abort.signal,
    signal: abort.signal,
  };
  const running = slack(ctx);
  while (!lines.some((line) => line.includes('listening on'))) await Bun.sleep(5);
  const url = /listening on (\S+)/.exec(lines.find((line) => line.includes('listening on'))!)![1]!;
  const send = (payload: unknown, headers: Record<string, string> = {}) =>
    postSlackEvent(url, payload, { signingSecret: SIGNING_SECRET, headers });
  const reply = (reply: ConnectorReply) => Promise.all(replyHandlers.map((handler) => handler(reply)));
  const stop = async () => {
    abort.abort();
    await running;
  };
  return { emitted, lines, send, reply, stop };
}

const mention = (eventId: string, channel: string, ts: string) => ({
  type: 'event_callback',
  team_id: 'T1',
  event_id: eventId,
  event_time: 1,
  event: { type: 'app_mention', channel, user: 'U1', ts, text: `<@B1> ${eventId}` },
});

const stops: (() => unknown)[] = [];
afterAll(async () => {
  for (const stop of stops) await stop();
});

/**
 * Starts the connector runner process with `start` (its connection, connector, entry, secrets, config), stderr piped
 * and IPC on; `options` adds a cwd or an IPC handler. Killed when the file's tests end.
 */
function startRunner(
  start: Record<string, unknown>,
  options: { cwd?: string; ipc?: (message: { type: string; id?: string; event?: { name: string } }) => void } = {},
) {
  const child = Bun.spawn([process.execPath, resolve(import.meta.dir, 'runtime', 'connector-runner.ts')], {
    ...(options.cwd ? { cwd: options.cwd } : {}),
    stdin: 'ignore',
    stdout: 'ignore',
    stderr: 'pipe',
    serialization: 'json',
    ipc: (message) => options.ipc?.(message),
  });
  stops.push(() => child.kill('SIGKILL'));
  child.send({ type: 'start', ...start });
  return child;
}

/** startRunner, until the process exits: its exit code and what it wrote to stderr. */
async function runToExit(start: Record<string, unknown>) {
  const child = startRunner(start);
  return { exitCode: await child.exited, stderr: await new Response(child.stderr).text() };
}

describe('Connector/slack under hostile deliveries', () => {
  test('a valid request delivered twice (the same event_id) is emitted once', async () => {
    const api = fakeWebApi(0);
    const slackConnector = await startSlack(api.apiRoot);
    stops.push(api.stop, slackConnector.stop);
    const event = mention('Ev0DUPLICATE', 'C1', '10.1');
    expect((await slackConnector.send(event)).status).toBe(200);
    expect((await slackConnector.send(event)).status).toBe(200);
    expect(slackConnector.emitted.length).toBe(1);
  });

  test("Slack's retry of a delivery that never reached the connector is emitted (not lost)", async () => {
    const api = fakeWebApi(0);
    const slackConnector = await startSlack(api.apiRoot);
    stops.push(api.stop, slackConnector.stop);
    // The first attempt never arrived (the connector process was restarting): Slack retries with Retry-Num 1.
    const retried = await slackConnector.send(mention('Ev0RETRYONLY', 'C2', '11.1'), {
      'x-slack-retry-num': '1',
      'x-slack-retry-reason': 'http_error',
    });
    expect(retried.status).toBe(200);
    expect(slackConnector.emitted.map((event) => event.properties?.ts)).toEqual(['11.1']);
  });

  test('a delivery the host refuses (shutting down) is answered 503, not 200, and its retry is emitted', async () => {
    const api = fakeWebApi(0);
    let refusing = true;
    const slackConnector = await startSlack(api.apiRoot, () => refusing);
    stops.push(api.stop, slackConnector.stop);
    const event = mention('Ev0REFUSED', 'C4', '13.1');
    expect((await slackConnector.send(event)).status).toBe(503);
    expect(slackConnector.emitted).toEqual([]);
    expect(slackConnector.lines.join('\n')).toContain('E_AGENT_SHUTTING_DOWN app_mention Ev0REFUSED answered 503');
    refusing = false;
    const retried = await slackConnector.send(event, {
      'x-slack-retry-num': '1',
      'x-slack-retry-reason': 'http_error',
    });
    expect(retried.status).toBe(200);
    expect(slackConnector.emitted.map((emitted) => emitted.properties?.ts)).toEqual(['13.1']);
  });

  test('a mention delivered as app_mention and as message (two event ids) is emitted once, as app_mention', async () => {
    const api = fakeWebApi(0);
    const slackConnector = await startSlack(api.apiRoot);
    stops.push(api.stop, slackConnector.stop);
    const both = (ts: string) => {
      const appMention = { ...mention(`Ev0A${ts}`, 'C5', ts), authorizations: [{ user_id: 'B1', is_bot: true }] };
      return {
        appMention,
        message: { ...appMention, event_id: `Ev0M${ts}`, event: { ...appMention.event, type: 'message' } },
      };
    };
    // app_mention first; then the message first (it waits for its app_mention).
    const first = both('14.1');
    expect((await slackConnector.send(first.appMention)).status).toBe(200);
    expect((await slackConnector.send(first.message)).status).toBe(200);
    const second = both('14.2');
    // Sent first, so it usually arrives first (the order of the two is the unit test's: once-per-message.test.ts).
    const message = slackConnector.send(second.message);
    expect((await slackConnector.send(second.appMention)).status).toBe(200);
    expect((await message).status).toBe(200);
    expect(slackConnector.emitted.map((event) => [event.name, event.properties?.ts])).toEqual([
      ['app_mention', '14.1'],
      ['app_mention', '14.2'],
    ]);
    // A plain message, and a mention no app_mention follows (as in a direct message): each emitted once.
    const plain = {
      ...mention('Ev0PLAIN', 'C5', '14.3'),
      event: { type: 'message', channel: 'C5', user: 'U1', ts: '14.3', text: 'hello' },
    };
    expect((await slackConnector.send(plain)).status).toBe(200);
    expect((await slackConnector.send(both('14.4').message)).status).toBe(200);
    expect(slackConnector.emitted.slice(2).map((event) => [event.name, event.properties?.ts])).toEqual([
      ['message', '14.3'],
      ['message', '14.4'],
    ]);
  });

  test('a reply answered 429 with Retry-After is posted again after the wait, once', async () => {
    const api = fakeWebApi(1);
    const slackConnector = await startSlack(api.apiRoot);
    stops.push(api.stop, slackConnector.stop);
    const event: ConnectorEvent = {
      name: 'app_mention',
      message: { type: 'text', text: 'hi' },
      properties: { channel_id: 'C3', user_id: 'U1', ts: '12.1' },
    };
    await slackConnector.reply({ event, text: 'the answer', status: 'completed', agent: 'a', instanceKey: 'k' });
    const deadline = Date.now() + 8_000;
    while (!api.calls.some((call) => call.status === 200) && Date.now() < deadline) await Bun.sleep(50);
    const delivered = api.calls.filter((call) => call.status === 200);
    expect(delivered.map((call) => call.body.text)).toEqual(['the answer']);
    expect(delivered[0]!.at - api.calls[0]!.at).toBeGreaterThanOrEqual(900);
  }, 15_000);
});

describe('connector runner log lines', () => {
  test("a reply handler's failure is logged with the Connection's secrets masked", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gdn-connector-mask-'));
    stops.push(() => rm(dir, { recursive: true, force: true }));
    const entry = join(dir, 'leaky.ts');
    await writeFile(
      entry,
      `export default async function leaky(ctx) {
  ctx.onReply(() => { throw new Error('could not post with ' + ctx.secrets.TOKEN); });
  await ctx.emit({ name: 'ping' });
  await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
}
`,
    );
    const secret = 'runner-secret-value-93';
    let stderr = '';
    const child = startRunner(
      {
        connection: 'leaky-c',
        connector: 'leaky',
        entry,
        events: null,
        secrets: { TOKEN: secret },
        config: {},
      },
      {
        cwd: dir,
        ipc(message: { type: string; id?: string }) {
          if (message.type === 'event')
            child.send({
              type: 'reply',
              id: message.id,
              reply: { event: { name: 'ping' }, text: 'pong', status: 'completed', agent: 'a', instanceKey: 'k' },
            });
        },
      },
    );
    const reading = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of child.stderr) stderr += decoder.decode(chunk, { stream: true });
    })();
    const deadline = Date.now() + 10_000;
    while (!stderr.includes('handler failed') && Date.now() < deadline) await Bun.sleep(20);
    child.send({ type: 'stop' });
    await child.exited;
    await reading;
    expect(stderr).toContain('handler failed');
    expect(stderr).not.toContain(secret);
  }, 20_000);

  test("emit settles with the host's answer; after quiesce it is refused at once, and stop refuses what waits", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gdn-connector-emit-'));
    stops.push(() => rm(dir, { recursive: true, force: true }));
    const entry = join(dir, 'probe.ts');
    await writeFile(
      entry,
      `export default async function probe(ctx) {
  const report = (what, sent) =>
    sent.then(() => ctx.logger.info(what + ': taken'), (thrown) => ctx.logger.info(what + ': ' + thrown.code));
  await report('one', ctx.emit({ name: 'one' }));
  await report('two', ctx.emit({ name: 'two' }));
  const three = report('three', ctx.emit({ name: 'three' }));
  await new Promise((resolve) => ctx.quiesced.addEventListener('abort', resolve, { once: true }));
  await report('four', ctx.emit({ name: 'four' }));
  await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
  await three;
}
`,
    );
    const received: string[] = [];
    const child = startRunner(
      { connection: 'probe-c', connector: 'probe', entry, events: null, secrets: {}, config: {} },
      {
        cwd: dir,
        ipc(message) {
          if (message.type !== 'event') return;
          const { id } = message;
          const name = message.event?.name ?? '';
          received.push(name);
          // one is taken, two refused; three gets no answer before the host quiesces.
          if (name === 'one') child.send({ type: 'event-answered', id });
          if (name === 'two')
            child.send({ type: 'event-answered', id, refused: { code: 'E_AGENT_SHUTTING_DOWN', message: 'no' } });
          if (name === 'three') child.send({ type: 'quiesce' });
        },
      },
    );
    let stderr = '';
    const reading = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of child.stderr) stderr += decoder.decode(chunk, { stream: true });
    })();
    const deadline = Date.now() + 10_000;
    while (!stderr.includes('four: ') && Date.now() < deadline) await Bun.sleep(20);
    child.send({ type: 'stop' });
    expect(await child.exited).toBe(0);
    await reading;
    expect(stderr).toContain('one: taken');
    expect(stderr).toContain('two: E_AGENT_SHUTTING_DOWN');
    expect(stderr).toContain('four: E_AGENT_SHUTTING_DOWN');
    expect(stderr).toContain('three: E_AGENT_SHUTTING_DOWN');
    expect(stderr.indexOf('four: ')).toBeLessThan(stderr.indexOf('three: '));
    expect(received).toEqual(['one', 'two', 'three']);
  }, 20_000);

  test('a reply handed over just before the stop is delivered with ctx.signal still live', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gdn-connector-reply-stop-'));
    stops.push(() => rm(dir, { recursive: true, force: true }));
    const entry = join(dir, 'probe.ts');
    // Its reply is a request that takes a while and, as a platform's API call does, gives up when ctx.signal aborts.
    await writeFile(
      entry,
      `export default async function probe(ctx) {
  ctx.onReply(async (reply) => {
    await new Promise((resolve, reject) => {
      if (ctx.signal.aborted) return reject(new Error('the post was aborted before it began'));
      const posted = setTimeout(resolve, 150);
      ctx.signal.addEventListener('abort', () => { clearTimeout(posted); reject(new Error('the post was aborted')); }, { once: true });
    });
    ctx.logger.info('replied ' + reply.text);
  });
  ctx.emit({ name: 'ping' }).catch(() => {});
  await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
}
`,
    );
    const child = startRunner(
      { connection: 'probe-r', connector: 'probe', entry, events: null, secrets: {}, config: {} },
      {
        cwd: dir,
        ipc(message) {
          if (message.type !== 'event') return;
          // The turn's reply, and the host's stop right behind it (the drain has ended).
          child.send({
            type: 'reply',
            id: message.id,
            reply: { event: { name: 'ping' }, text: 'pong', status: 'completed', agent: 'a', instanceKey: 'k' },
          });
          child.send({ type: 'stop' });
        },
      },
    );
    const stderr = new Response(child.stderr).text();
    expect(await child.exited).toBe(0);
    const text = await stderr;
    expect(text).toContain('replied pong');
    expect(text).not.toContain('aborted');
  }, 20_000);

  test('a connector that fails at once is never reported ready (it was said to be running, then restarted)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gdn-connector-early-'));
    stops.push(() => rm(dir, { recursive: true, force: true }));
    const entry = join(dir, 'early.ts');
    await writeFile(
      entry,
      `export default async function early(ctx) {
  if (!ctx.secrets.TOKEN) throw new Error('secrets.TOKEN is required');
}
`,
    );
    const messages: string[] = [];
    const child = startRunner(
      {
        connection: 'early-c',
        connector: 'early',
        entry,
        events: null,
        secrets: {},
        config: {},
      },
      {
        cwd: dir,
        ipc(message: { type: string }) {
          messages.push(message.type);
        },
      },
    );
    expect(await child.exited).toBe(1);
    expect(messages).not.toContain('ready');
    expect(await new Response(child.stderr).text()).toContain('E_CONNECTOR_FAILED');
  }, 20_000);
});

/** Runs Connector/telegram in the connector runner process against a fake Bot API, until it exits. */
function runTelegram(api: Pick<FakeBotApi, 'apiRoot'>, token: string, pollTimeoutSeconds = 1) {
  return runToExit({
    connection: 'tg-hostile',
    connector: 'telegram',
    entry: resolve(import.meta.dir, 'telegram', 'index.ts'),
    events: null,
    secrets: { TELEGRAM_BOT_TOKEN: token },
    config: { API_ROOT: api.apiRoot, ALLOWED_CHAT_IDS: '777', POLL_TIMEOUT_SECONDS: String(pollTimeoutSeconds) },
  });
}

describe('Connector/telegram when the Bot API refuses or does not answer', () => {
  const TOKEN = '4242:hostile-telegram-token';

  test('a refused token at start is E_CHANNEL_AUTH saying what to do: no stack, no token', async () => {
    const api = startFakeBotApi({ token: TOKEN });
    stops.push(() => api.stop());
    const { exitCode, stderr } = await runTelegram(api, '4242:revoked-hostile-token');
    expect(exitCode).toBe(1);
    expect(stderr).toContain('E_CONNECTOR_FAILED E_CHANNEL_AUTH Telegram refused the bot token');
    expect(stderr).toContain('secrets.TELEGRAM_BOT_TOKEN');
    expect(stderr).not.toMatch(/^\s+at /m);
    expect(stderr).not.toContain('revoked-hostile-token');
  }, 20_000);

  test('a token refused while polling (revoked meanwhile) is E_CHANNEL_AUTH too, not a GrammyError stack', async () => {
    const api = startFakeBotApi({ token: TOKEN });
    stops.push(() => api.stop());
    api.failNext('getUpdates', { error_code: 401, description: 'Unauthorized' });
    const { exitCode, stderr } = await runTelegram(api, TOKEN);
    expect(api.callsOf('getMe').map((call) => call.status)).toEqual([200]);
    expect(exitCode).toBe(1);
    expect(stderr).toContain('E_CHANNEL_AUTH Telegram refused the bot token (getUpdates:');
    expect(stderr).not.toMatch(/^\s+at /m);
    expect(stderr).not.toContain(TOKEN);
  }, 20_000);

  test('a Bot API that accepts and never answers getMe is given up (E_CHANNEL_API, timed out), not waited on for minutes', async () => {
    let asked = 0;
    const silent = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      idleTimeout: 0,
      fetch: () => {
        asked++;
        return new Promise<Response>(() => {});
      },
    });
    stops.push(() => silent.stop(true));
    const { exitCode, stderr } = await runTelegram({ apiRoot: `http://127.0.0.1:${silent.port}` }, TOKEN, 0);
    expect(asked).toBe(1);
    expect(exitCode).toBe(1);
    expect(stderr).toContain('E_CONNECTOR_FAILED E_CHANNEL_API getMe failed');
    expect(stderr).toContain('timed out after 30 seconds');
    expect(stderr).not.toContain(TOKEN);
  }, 90_000);

  test('getUpdates answered with garbage, then 502, is logged once as E_CHANNEL_API and its recovery once', async () => {
    // A Bot API that answers getMe, then the long poll with an HTML page (200), an HTML 502, then as it should.
    const polls: number[] = [];
    const flaky = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      idleTimeout: 0,
      fetch(request) {
        const method = new URL(request.url).pathname.split('/').pop();
        if (method === 'getMe') {
          return Response.json({ ok: true, result: { id: 7, is_bot: true, first_name: 'Bot', username: 'test_bot' } });
        }
        if (method !== 'getUpdates') return Response.json({ ok: true, result: true });
        polls.push(polls.length);
        if (polls.length === 1) return new Response('<html>maintenance</html>', { status: 200 });
        if (polls.length === 2) return new Response('<html>Bad Gateway</html>', { status: 502 });
        return Response.json({ ok: true, result: [] });
      },
    });
    stops.push(() => flaky.stop(true));
    const child = startRunner({
      connection: 'tg-flaky',
      connector: 'telegram',
      entry: resolve(import.meta.dir, 'telegram', 'index.ts'),
      events: null,
      secrets: { TELEGRAM_BOT_TOKEN: TOKEN },
      config: { API_ROOT: `http://127.0.0.1:${flaky.port}`, ALLOWED_CHAT_IDS: '777', POLL_TIMEOUT_SECONDS: '0' },
    });
    let stderr = '';
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      stderr += decoder.decode(chunk, { stream: true });
      if (stderr.includes('getUpdates answers again')) break;
    }
    child.send({ type: 'stop' });
    await child.exited;
    expect(stderr.match(/E_CHANNEL_API getUpdates failed/g)?.length).toBe(1);
    expect(stderr).toContain('retrying every 3 s until the Bot API answers');
    expect(stderr.match(/getUpdates answers again/g)?.length).toBe(1);
    expect(stderr).not.toContain(TOKEN);
  }, 60_000);
});

describe('Connector/slack that cannot start', () => {
  /** Runs Connector/slack in the connector runner process until it exits. */
  function runSlack(secrets: Record<string, string>, config: Record<string, string>) {
    return runToExit({
      connection: 'slack-start',
      connector: 'slack',
      entry: resolve(import.meta.dir, 'slack', 'index.ts'),
      events: null,
      secrets,
      config,
    });
  }

  test('a port in use is E_SERVE_LISTEN_FAILED naming the address and config.PORT, and no stack', async () => {
    const taken = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() });
    stops.push(() => taken.stop(true));
    const { exitCode, stderr } = await runSlack({ SLACK_SIGNING_SECRET: SIGNING_SECRET }, { PORT: String(taken.port) });
    expect(exitCode).toBe(1);
    expect(stderr).toContain(`E_SERVE_LISTEN_FAILED Connector/slack cannot listen on 127.0.0.1:${taken.port}`);
    expect(stderr).toContain('set config.PORT');
    expect(stderr).not.toMatch(/^\s+at /m);
  }, 20_000);

  test('no signing secret is E_CONNECTION_INVALID saying which secret, and no stack', async () => {
    const { exitCode, stderr } = await runSlack({}, { PORT: '0' });
    expect(exitCode).toBe(1);
    expect(stderr).toContain('E_CONNECTOR_FAILED E_CONNECTION_INVALID secrets.SLACK_SIGNING_SECRET is required');
    expect(stderr).not.toMatch(/^\s+at /m);
  }, 20_000);
});

describe('Connector/cron with a config it cannot use', () => {
  test('an unknown TIME_ZONE is E_SCHEDULE_TIME_ZONE naming the field and what to give, not a TypeError stack', async () => {
    const { exitCode, stderr } = await runToExit({
      connection: 'cron-zone',
      connector: 'cron',
      entry: resolve(import.meta.dir, 'cron', 'index.ts'),
      events: null,
      secrets: {},
      config: { SCHEDULE: '* * * * *', TIME_ZONE: 'Mars/Olympus' },
    });
    expect(exitCode).toBe(1);
    expect(stderr).toContain("E_SCHEDULE_TIME_ZONE config.TIME_ZONE: Unknown time zone 'Mars/Olympus'.");
    expect(stderr).toContain('IANA time zone name');
    expect(stderr).not.toMatch(/^\s+at /m);
  }, 20_000);
});
