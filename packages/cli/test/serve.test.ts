// gdn serve as a real process: the OpenAI-compatible API (with the official `openai` client, streaming included),
// the JSON endpoints and their bad inputs, the token, SIGTERM draining a running turn, and --watch reloads.
import { afterAll, afterEach, describe, expect, test } from 'bun:test';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConversationStore, instancePaths, openInstanceDatabase } from '@goondan/core';
import OpenAI from 'openai';
import { startFakeBotApi } from '../../base/test/fake-bot-api.ts';
import { agentBundle, cleanupTempDirs, cliEnv, editBundle, gdn, makeTempDir, rawRequest, startGdn } from './helpers.ts';

afterAll(cleanupTempDirs);

const started: ReturnType<typeof startGdn>[] = [];
afterEach(() => {
  for (const server of started.splice(0)) server.proc.kill('SIGKILL');
});

/** Two agents and no Swarm: gdn serve runs both under an implicit one. `guarded` asks before running bash. */
const guardedAgent = `apiVersion: goondan.ai/v1
kind: Agent
metadata:
  name: guarded
spec:
  modelConfig:
    modelRef: Model/guarded-model
  tools:
    - Tool/bash
---
apiVersion: goondan.ai/v1
kind: Model
metadata:
  name: guarded-model
spec:
  provider: scripted
  model: guarded
  script:
    - toolCalls:
        - name: bash__exec
          args: { command: "echo approved-run" }
    - text: Ran it.
---
`;

function helperModel(steps: object[]): string {
  return `${guardedAgent}apiVersion: goondan.ai/v1
kind: Model
metadata:
  name: main
spec:
  provider: scripted
  model: fixture
  script: ${JSON.stringify(steps)}
`;
}

/** Starts `gdn serve --port 0` and resolves with its URL once it prints it. */
async function serve(bundle: string, args: string[] = [], env: Record<string, string> = {}) {
  const server = startGdn(['serve', '--bundle', bundle, '--port', '0', ...args], { env: cliEnv(env) });
  started.push(server);
  await server.waitForStderr('OpenAI-compatible base URL: ', 60_000);
  const url = /base URL: (\S+)\/v1/.exec(server.stderr)?.[1];
  if (!url) throw new Error(`no URL in:\n${server.stderr}`);
  return { server, url };
}

/** What the tests read of the API's JSON answers. */
interface ApiJson {
  error?: { code: string; type?: string; message: string; helpUrl: string };
  eventId?: string;
  approval?: { status: string };
  schedule?: unknown;
  [key: string]: unknown;
}

interface PendingApproval {
  id: string;
  agent: string;
  toolName: string;
  status: string;
}

interface HealthJson {
  status: string;
  swarm: string;
  instances: { agent: string; instanceKey: string; state: string }[];
}

async function getJson<T>(url: string): Promise<T> {
  return (await (await fetch(url)).json()) as T;
}

/** GET over a raw socket, with a Host header fetch() would not send; answers like postJson. */
async function rawGet(url: string, path: string, host: string): Promise<{ status: number; json: ApiJson }> {
  const { status, body } = await rawRequest(url, `GET ${path} HTTP/1.1`, { host });
  return { status, json: JSON.parse(body.slice(body.indexOf('{'), body.lastIndexOf('}') + 1)) as ApiJson };
}

async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as ApiJson };
}

describe('gdn serve: OpenAI-compatible chat completions and the JSON API', () => {
  test('answers the openai client, streams text deltas, and keeps the conversation', async () => {
    const bundle = await agentBundle(
      helperModel([{ text: 'Hello from the helper agent.' }, { text: 'Second turn of this instance.' }]),
    );
    const { url } = await serve(bundle);
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused', maxRetries: 0 });

    const models = await client.models.list();
    expect(models.data.map((model) => model.id).sort()).toEqual(['guarded', 'helper']);

    const completion = await client.chat.completions.create({
      model: 'helper',
      messages: [
        { role: 'system', content: 'ignored: the agent has its own prompt' },
        { role: 'user', content: 'Hi there' },
      ],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]?.message.content).toBe('Hello from the helper agent.');
    expect(completion.choices[0]?.finish_reason).toBe('stop');

    // The same instance (default) continues: the second scripted step answers.
    const stream = await client.chat.completions.create({
      model: 'helper',
      messages: [{ role: 'user', content: 'And again' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const pieces: string[] = [];
    let finish: string | null | undefined;
    let usage: unknown;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (choice?.delta.content) pieces.push(choice.delta.content);
      if (choice?.finish_reason) finish = choice.finish_reason;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(pieces.join('')).toBe('Second turn of this instance.');
    // The scripted model streams its text in several deltas: they arrive as several chunks, not one at the end.
    expect(pieces.length).toBeGreaterThan(1);
    expect(finish).toBe('stop');
    expect(usage).toMatchObject({ total_tokens: expect.any(Number) });

    // Another instance, named by the X-Goondan-Instance header, starts its own conversation.
    const other = await client.chat.completions.create(
      { model: 'helper', messages: [{ role: 'user', content: 'Who am I?' }] },
      { headers: { 'X-Goondan-Instance': 'alice' } },
    );
    expect(other.choices[0]?.message.content).toBe('Hello from the helper agent.');

    const conversation = await getJson<{ total: number; messages: { role: string; content: unknown }[] }>(
      `${url}/v1/agents/helper/instances/default/conversation`,
    );
    expect(conversation.total).toBe(4);
    expect(conversation.messages.map((message: { role: string }) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(JSON.stringify(conversation.messages[0]?.content)).toContain('Hi there');
    // Paged back from the last two: the two before them, and no earlier page.
    const last = await getJson<{ earlier: string; messages: { id: string }[] }>(
      `${url}/v1/agents/helper/instances/default/conversation?limit=2`,
    );
    const before = await getJson<{ earlier: string | null; messages: { role: string }[] }>(
      `${url}/v1/agents/helper/instances/default/conversation?limit=2&before=${last.earlier}`,
    );
    expect(last.earlier).toBe(last.messages[0]!.id);
    expect(before.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(before.earlier).toBeNull();

    const health = await getJson<HealthJson>(`${url}/healthz`);
    expect(health.status).toBe('ok');
    expect(health.swarm).toBe('serve');
    const instances = health.instances.map(
      (info: { agent: string; instanceKey: string }) => `${info.agent}/${info.instanceKey}`,
    );
    expect(instances.sort()).toEqual(['helper/alice', 'helper/default']);

    // An unknown agent is an OpenAI-style 404 the client raises, with our code.
    const failure = await client.chat.completions
      .create({ model: 'nobody', messages: [{ role: 'user', content: 'x' }] })
      .catch((thrown: unknown) => thrown);
    expect(failure).toBeInstanceOf(OpenAI.NotFoundError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).code).toBe('E_AGENT_UNKNOWN');
  }, 120_000);

  test('events, approvals and bad inputs answer with coded JSON', async () => {
    const bundle = await agentBundle(helperModel([{ text: 'Event handled.' }]));
    const { url } = await serve(bundle);

    const waited = await postJson(`${url}/v1/agents/helper/instances/ev/events`, {
      input: 'hello',
      userId: 'ada',
      wait: true,
    });
    expect(waited.status).toBe(200);
    expect(waited.json).toMatchObject({ status: 'completed', text: 'Event handled.' });
    // The turn acted for the user the client named: its messages say so (per-user OAuth grants are Ada's).
    const { databaseFile } = instancePaths({ rootDir: bundle, agentName: 'helper', instanceKey: 'ev' });
    const db = openInstanceDatabase(databaseFile);
    const stored = new ConversationStore(db).load();
    db.close();
    expect(stored.map((message) => message.metadata.userId)).toEqual(['ada', 'ada']);
    const badUser = await postJson(`${url}/v1/agents/helper/instances/ev/events`, { input: 'x', userId: 7 });
    expect(badUser.status).toBe(400);
    expect(badUser.json.error?.code).toBe('E_SERVE_BAD_REQUEST');

    const sent = await postJson(`${url}/v1/agents/helper/instances/ev2/events`, { input: 'fire and forget' });
    expect(sent.status).toBe(202);
    expect(sent.json.eventId).toEqual(expect.any(String));

    // A call that needs approval waits; the API lists it and approves it; the turn then finishes.
    const turn = postJson(`${url}/v1/agents/guarded/instances/default/events`, { input: 'run it', wait: true });
    let pending: PendingApproval[] = [];
    for (const deadline = Date.now() + 60_000; pending.length === 0 && Date.now() < deadline; await Bun.sleep(50)) {
      pending = (await getJson<{ approvals: PendingApproval[] }>(`${url}/v1/approvals`)).approvals;
    }
    expect(pending[0]).toMatchObject({ agent: 'guarded', toolName: 'bash__exec', status: 'pending' });
    const approved = await postJson(`${url}/v1/approvals/${pending[0]!.id}/approve`, { by: 'tester' });
    expect(approved.status).toBe(200);
    expect(approved.json.approval?.status).toBe('approved');
    expect((await turn).json).toMatchObject({ status: 'completed', text: 'Ran it.' });
    const again = await postJson(`${url}/v1/approvals/${pending[0]!.id}/deny`, {});
    expect(again).toMatchObject({ status: 404, json: { error: { code: 'E_APPROVAL_NOT_FOUND' } } });

    const cases: [string, Promise<{ status: number; json: ApiJson }>, number, string][] = [
      ['malformed JSON', postJson(`${url}/v1/chat/completions`, '{"model": '), 400, 'E_SERVE_BAD_REQUEST'],
      [
        'messages of the wrong type',
        postJson(`${url}/v1/chat/completions`, { model: 'helper', messages: 'hi' }),
        400,
        'E_SERVE_BAD_REQUEST',
      ],
      [
        'no user message',
        postJson(`${url}/v1/chat/completions`, { model: 'helper', messages: [{ role: 'system', content: 'x' }] }),
        400,
        'E_SERVE_BAD_REQUEST',
      ],
      [
        'an invalid instance key',
        postJson(
          `${url}/v1/chat/completions`,
          { model: 'helper', messages: [{ role: 'user', content: 'x' }] },
          { 'x-goondan-instance': '../etc' },
        ),
        400,
        'E_INSTANCE_KEY_INVALID',
      ],
      [
        // Not the default instance's conversation (shared by every client that names none), nor the user's.
        'an empty instance header',
        postJson(
          `${url}/v1/chat/completions`,
          { model: 'helper', user: 'bob', messages: [{ role: 'user', content: 'x' }] },
          { 'x-goondan-instance': '' },
        ),
        400,
        'E_INSTANCE_KEY_INVALID',
      ],
      [
        'a reserved event type',
        postJson(`${url}/v1/agents/helper/instances/ev/events`, { input: 'x', type: 'schedule.fired' }),
        400,
        'E_SERVE_BAD_REQUEST',
      ],
      [
        'an event type of 100,000 characters',
        postJson(`${url}/v1/agents/helper/instances/ev/events`, { input: 'x', type: 'z'.repeat(100_000) }),
        400,
        'E_SERVE_BAD_REQUEST',
      ],
      [
        'an unknown agent',
        postJson(`${url}/v1/agents/nobody/instances/ev/events`, { input: 'x' }),
        404,
        'E_AGENT_UNKNOWN',
      ],
      [
        'a body nested 100,000 levels deep',
        postJson(
          `${url}/v1/agents/helper/instances/deep/events`,
          `{"input":"x","data":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
        ),
        400,
        'E_SERVE_BAD_REQUEST',
      ],
      [
        'a Host header that is not a host name',
        rawGet(url, '/healthz', '127.0.0.1@evil.example'),
        400,
        'E_SERVE_BAD_REQUEST',
      ],
      [
        'a body over 1 MiB',
        postJson(`${url}/v1/chat/completions`, {
          model: 'helper',
          messages: [{ role: 'user', content: 'x'.repeat(1_100_000) }],
        }),
        413,
        'E_SERVE_BODY_TOO_LARGE',
      ],
    ];
    for (const [what, answer, status, code] of cases) {
      const { status: got, json } = await answer;
      expect({ what, status: got, code: json.error?.code }).toEqual({ what, status, code });
      expect(json.error?.message).toEqual(expect.any(String));
      expect(json.error?.helpUrl).toBe(`docs/errors/${code}.md`);
    }
    // A name of 500,000 characters is quoted back short, on one line: the answer is not the request again.
    const longName = await postJson(`${url}/v1/chat/completions`, {
      model: `n\n${'o'.repeat(500_000)}`,
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(longName.status).toBe(404);
    expect(longName.json.error?.message).toStartWith(`No agent named 'n\\n${'o'.repeat(98)}…' is served here.`);
    expect(longName.json.error!.message.length).toBeLessThan(300);
    // A text/plain POST (what a web page may send without asking) is refused before anything runs.
    const plain = await fetch(`${url}/v1/agents/helper/instances/csrf/events`, {
      method: 'POST',
      body: '{"input":"x"}',
    });
    expect(plain.status).toBe(400);
    const unknownInstance = await fetch(`${url}/v1/agents/helper/instances/never/conversation`);
    expect(unknownInstance.status).toBe(404);
    expect(((await unknownInstance.json()) as ApiJson).error?.code).toBe('E_INSTANCE_NOT_FOUND');
    const wrongMethod = await fetch(`${url}/v1/chat/completions`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    expect((await fetch(`${url}/v2/nothing`)).status).toBe(404);
    // Web pages of other sites are refused, and so is a name made to resolve to 127.0.0.1 (DNS rebinding).
    const foreign = await fetch(`${url}/healthz`, { headers: { origin: 'http://evil.example' } });
    expect(foreign.status).toBe(403);
    // OpenAI's type for a 403 (its client libraries raise PermissionDeniedError), not the 401's.
    expect((await foreign.json()) as ApiJson).toMatchObject({
      error: { code: 'E_SERVE_UNAUTHORIZED', type: 'permission_error' },
    });
    const rebound = await fetch(`${url}/healthz`, { headers: { host: 'evil.example' } });
    expect(rebound.status).toBe(403);
    expect(((await rebound.json()) as ApiJson).error?.type).toBe('permission_error');
    expect(((await wrongMethod.json()) as ApiJson).error?.type).toBe('invalid_request_error');
    // Nothing half-written: the refused requests created no instance.
    const health = await getJson<HealthJson>(`${url}/healthz`);
    const keys = health.instances.map((info: { instanceKey: string }) => info.instanceKey).sort();
    expect(keys).not.toContain('csrf');
  }, 120_000);
});

describe('gdn serve: idle agent processes', () => {
  test('--idle-stop stops an idle instance process; its next event starts it again; a bad value is a usage error', async () => {
    const bundle = await agentBundle(helperModel([{ text: 'Event handled.' }]));
    const { url } = await serve(bundle, ['--idle-stop', '400']);
    const state = async () =>
      (await getJson<HealthJson>(`${url}/healthz`)).instances.find((instance) => instance.instanceKey === 'idle')
        ?.state;
    const first = await postJson(`${url}/v1/agents/helper/instances/idle/events`, { input: 'hello', wait: true });
    expect(first.json).toMatchObject({ status: 'completed', text: 'Event handled.' });
    for (const deadline = Date.now() + 30_000; (await state()) !== 'stopped'; await Bun.sleep(50)) {
      if (Date.now() > deadline) throw new Error(`the idle process did not stop: ${await state()}`);
    }
    // The scripted model starts its script again in the new process; the conversation goes on from the database.
    const second = await postJson(`${url}/v1/agents/helper/instances/idle/events`, { input: 'again', wait: true });
    expect(second.json).toMatchObject({ status: 'completed', text: 'Event handled.' });
    const conversation = await getJson<{ total: number }>(`${url}/v1/agents/helper/instances/idle/conversation`);
    expect(conversation.total).toBe(4);
    const refused = await gdn(['serve', '--bundle', bundle, '--idle-stop', 'soon']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain("--idle-stop must be a whole number, got 'soon'");
  }, 120_000);

  test('--max-processes: an event for one instance more starts it once the idle process made room (stopped)', async () => {
    const bundle = await agentBundle(helperModel([{ text: 'Event handled.' }]));
    const { url } = await serve(bundle, ['--max-processes', '1']);
    const events = (key: string) => `${url}/v1/agents/helper/instances/${key}/events`;
    expect((await postJson(events('first'), { input: 'hello', wait: true })).json).toMatchObject({
      status: 'completed',
    });
    const second = await postJson(events('second'), { input: 'hello', wait: true });
    expect(second.json).toMatchObject({ status: 'completed', text: 'Event handled.' });
    const states = Object.fromEntries(
      (await getJson<HealthJson>(`${url}/healthz`)).instances.map((info) => [info.instanceKey, info.state]),
    );
    expect(states).toMatchObject({ first: 'stopped', second: 'ready' });
    const refused = await gdn(['serve', '--bundle', bundle, '--max-processes', 'many']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain("--max-processes must be a whole number, got 'many'");
  }, 120_000);
});

describe('gdn serve: the bundle scheduler over HTTP', () => {
  test('a schedule added over HTTP fires into its instance; bad schedules are refused and nothing is stored', async () => {
    const bundle = await agentBundle(helperModel([{ text: 'Reminder noted.' }]));
    const { url } = await serve(bundle);
    const refused: [object, string][] = [
      [{ agent: 'helper', at: '2001-01-01T00:00:00Z', label: 'past' }, 'E_SCHEDULE_IN_PAST'],
      [{ agent: 'helper', rrule: 'FREQ=SOMETIMES', label: 'impossible' }, 'E_SCHEDULE_INVALID'],
      [{ agent: 'nobody', inMs: 1000, label: 'unknown agent' }, 'E_AGENT_UNKNOWN'],
      [{ agent: 'helper', inMs: 'soon' }, 'E_SERVE_BAD_REQUEST'],
      [{ agent: 'helper', inMs: 1e300, label: 'never' }, 'E_SCHEDULE_INVALID'],
    ];
    for (const [body, code] of refused) {
      const answer = await postJson(`${url}/v1/schedules`, body);
      expect({ body, code: answer.json.error?.code }).toEqual({ body, code });
    }
    const none = await getJson<{ schedules: unknown[] }>(`${url}/v1/schedules?status=all`);
    expect(none.schedules).toEqual([]);

    const added = await postJson(`${url}/v1/schedules`, {
      agent: 'helper',
      instanceKey: 'timer',
      inMs: 200,
      label: 'stretch',
      input: 'Time to stretch.',
    });
    expect(added.status).toBe(201);
    let conversation = { total: 0, messages: [] as { role: string; content: unknown }[] };
    for (const deadline = Date.now() + 60_000; conversation.total < 2 && Date.now() < deadline; await Bun.sleep(50)) {
      const response = await fetch(`${url}/v1/agents/helper/instances/timer/conversation`);
      if (response.status === 200) conversation = (await response.json()) as typeof conversation;
    }
    expect(JSON.stringify(conversation.messages[0]?.content)).toContain('Time to stretch.');
    expect(conversation.messages[1]?.role).toBe('assistant');

    const later = await postJson(`${url}/v1/schedules`, { agent: 'helper', inMs: 3_600_000, label: 'later' });
    const id = (later.json.schedule as { id: string }).id;
    expect((await fetch(`${url}/v1/schedules/${id}`, { method: 'DELETE' })).status).toBe(200);
    const again = await fetch(`${url}/v1/schedules/${id}`, { method: 'DELETE' });
    expect(again.status).toBe(404);
    expect(((await again.json()) as ApiJson).error?.code).toBe('E_SCHEDULE_NOT_FOUND');
  }, 120_000);
});

describe('gdn serve: channels the bundle declares', () => {
  test('an agent listing Extension/telegram answers its bot (a fake Bot API on 127.0.0.1) while serving HTTP', async () => {
    const token = '123456:serve-test';
    const api = startFakeBotApi({ token });
    try {
      const dir = await makeTempDir('gdn-serve-telegram-');
      const documents = [
        {
          apiVersion: 'goondan.ai/v1',
          kind: 'Agent',
          metadata: { name: 'assistant' },
          spec: {
            modelConfig: { modelRef: 'Model/bot' },
            extensions: [
              {
                ref: 'Extension/telegram',
                config: {
                  token: { valueFrom: { env: 'TEST_TELEGRAM_TOKEN' } },
                  allowedChatIds: [42],
                  apiRoot: api.apiRoot,
                },
              },
            ],
          },
        },
        {
          apiVersion: 'goondan.ai/v1',
          kind: 'Model',
          metadata: { name: 'bot' },
          spec: { provider: 'scripted', model: 'bot', script: [{ text: 'Hello from the served bot.' }] },
        },
      ];
      await writeFile(join(dir, 'goondan.yaml'), documents.map((document) => JSON.stringify(document)).join('\n---\n'));
      const { server, url } = await serve(dir, [], { TEST_TELEGRAM_TOKEN: token });
      await server.waitForStderr('telegram channel answering for assistant');
      api.pushMessage(42, 'hi bot');
      await api.waitFor(
        () => api.callsOf('sendMessage', 42).some((call) => call.payload.text === 'Hello from the served bot.'),
        'the reply in chat 42',
        60_000,
      );
      const health = await getJson<HealthJson>(`${url}/healthz`);
      expect(health.instances.map((info) => `${info.agent}/${info.instanceKey}`)).toContain('assistant/telegram-42');
      server.proc.kill('SIGTERM');
      expect((await server.finish()).exitCode).toBe(143);
    } finally {
      await api.stop();
    }
  }, 120_000);
});

describe('gdn serve: security, shutdown and reload', () => {
  test('refuses a non-loopback address without a token, and checks the token when set', async () => {
    const bundle = await agentBundle(helperModel([{ text: 'With token.' }]));
    const refused = await gdn(['serve', '--bundle', bundle, '--host', '0.0.0.0', '--port', '0']);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain('E_SERVE_TOKEN_REQUIRED');
    // The advice names the flag; the redactor must not take the next word for a token.
    expect(refused.stderr).toContain('Set a token with --token or GOONDAN_SERVE_TOKEN');

    const { url } = await serve(bundle, ['--allow-origin', 'https://app.example'], {
      GOONDAN_SERVE_TOKEN: 'test-token-123',
    });
    // A browser app of an allowed origin gets its CORS preflight answered.
    const preflight = await fetch(`${url}/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization');
    // The OpenAI SDK in a browser asks for its own headers too; they are allowed, or the browser sends nothing.
    const asked = 'authorization, content-type, x-stainless-lang, x-stainless-retry-count, x-stainless-timeout';
    const sdkPreflight = await fetch(`${url}/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': asked,
      },
    });
    expect(sdkPreflight.status).toBe(204);
    const allowedHeaders = (sdkPreflight.headers.get('access-control-allow-headers') ?? '').split(/,\s*/);
    expect(allowedHeaders).toEqual(expect.arrayContaining(asked.split(', ')));
    // ... and the page may read the headers the SDK and the docs rely on (no retry of a turn that ran, the instance).
    const fromPage = await fetch(`${url}/v1/models`, {
      headers: { origin: 'https://app.example', authorization: 'Bearer test-token-123' },
    });
    expect(fromPage.status).toBe(200);
    const exposed = (fromPage.headers.get('access-control-expose-headers') ?? '').split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(['x-goondan-instance', 'x-request-id', 'x-should-retry']));
    const anonymous = await fetch(`${url}/healthz`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    expect(((await anonymous.json()) as ApiJson).error?.code).toBe('E_SERVE_UNAUTHORIZED');
    const wrong = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'wrong-token-123', maxRetries: 0 });
    expect(await wrong.models.list().catch((thrown: unknown) => thrown)).toBeInstanceOf(OpenAI.AuthenticationError);
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'test-token-123', maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: 'helper',
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(completion.choices[0]?.message.content).toBe('With token.');
  }, 120_000);

  test('SIGTERM lets the running turn finish and answer, then exits 143', async () => {
    const bundle = await agentBundle(
      helperModel([
        { text: 'Waiting now.', toolCalls: [{ name: 'slow__wait', args: { ms: 1500 } }] },
        { text: 'Done waiting.' },
      ]),
    );
    const { server, url } = await serve(bundle, ['--grace', '60000']);
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: 'helper',
      messages: [{ role: 'user', content: 'wait a bit' }],
      stream: true,
    });
    let text = '';
    let signalled = false;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      // The turn is running (its first text arrived): stop the server now.
      if (!signalled && text.includes('Waiting now.')) {
        signalled = true;
        server.proc.kill('SIGTERM');
      }
    }
    expect(signalled).toBe(true);
    // The two steps' texts, a blank line between them (not run together).
    expect(text).toBe('Waiting now.\n\nDone waiting.');
    const result = await server.finish();
    expect(result.exitCode).toBe(143);
    expect(result.stderr).toContain('[serve] stopped');
  }, 120_000);

  test('without --watch, a new git revision of the bundle (as an activated changeset makes) reloads it', async () => {
    const bundle = await agentBundle(helperModel([{ text: 'First revision.' }]));
    const git = async (...args: string[]) => {
      const identity = ['-c', 'user.name=Test', '-c', 'user.email=test@example.test', '-c', 'commit.gpgsign=false'];
      const proc = Bun.spawn(['git', ...identity, ...args], { cwd: bundle, stdout: 'ignore', stderr: 'pipe' });
      if ((await proc.exited) !== 0)
        throw new Error(`git ${args.join(' ')}: ${await new Response(proc.stderr).text()}`);
    };
    await writeFile(join(bundle, '.gitignore'), '.goondan/\n');
    await git('init', '-q', '-b', 'main');
    await git('add', '-A');
    await git('commit', '-q', '-m', 'bundle');
    const { server, url } = await serve(bundle);
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const ask = async (instance: string) =>
      (
        await client.chat.completions.create(
          { model: 'helper', messages: [{ role: 'user', content: 'x' }] },
          { headers: { 'X-Goondan-Instance': instance } },
        )
      ).choices[0]?.message.content;
    expect(await ask('one')).toBe('First revision.');
    await editBundle(bundle, (text) => text.replace('First revision.', 'Second revision.'));
    await git('commit', '-q', '-am', 'second revision');
    await server.waitForStderr('[watch] reloaded: restarted helper/one', 60_000);
    expect(await ask('two')).toBe('Second revision.');
  }, 120_000);

  test('--watch restarts the agent whose resources changed; the next turn runs the new revision', async () => {
    const bundle = await agentBundle(helperModel([{ text: 'First revision.' }]));
    const { server, url } = await serve(bundle, ['--watch']);
    await server.waitForStderr('[watch] watching', 60_000);
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const first = await client.chat.completions.create({ model: 'helper', messages: [{ role: 'user', content: 'x' }] });
    expect(first.choices[0]?.message.content).toBe('First revision.');
    await editBundle(bundle, (text) => text.replace('First revision.', 'Second revision.'));
    await server.waitForStderr('[watch] reloaded: restarted helper/default', 60_000);
    const second = await client.chat.completions.create({
      model: 'helper',
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(second.choices[0]?.message.content).toBe('Second revision.');
  }, 120_000);
});

describe('gdn serve: what OpenAI clients send and expect', () => {
  test('an e-mail as user gets an instance of its own; history ending with the assistant, n > 1, forced client tools and JSON formats are refused', async () => {
    const bundle = await agentBundle(helperModel([{ text: 'Hello, Alice.' }, { text: 'Second.' }]));
    const { url } = await serve(bundle);
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const ask = [{ role: 'user' as const, content: 'hi' }];
    const raw = await client.chat.completions
      .create({ model: 'helper', user: 'alice@example.com', messages: ask })
      .withResponse();
    expect(raw.data.choices[0]?.message.content).toBe('Hello, Alice.');
    const instance = raw.response.headers.get('x-goondan-instance')!;
    expect(instance).toMatch(/^user-[0-9a-f]{32}$/);
    expect(raw.response.headers.get('x-request-id')).toMatch(/^evt_/);
    const conversation = await getJson<{ messages: { role: string; content: unknown }[] }>(
      `${url}/v1/agents/helper/instances/${instance}/conversation`,
    );
    expect(conversation.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    const refusal = async (body: Record<string, unknown>) => {
      const thrown = await client.chat.completions
        .create({ model: 'helper', messages: ask, ...body } as never)
        .catch((error: unknown) => error);
      expect(thrown).toBeInstanceOf(OpenAI.BadRequestError);
      return (thrown as InstanceType<typeof OpenAI.BadRequestError>).message;
    };
    expect(await refusal({ messages: [...ask, { role: 'assistant', content: 'Hello, Alice.' }] })).toContain(
      "The last message must be the user's (got 'assistant')",
    );
    expect(await refusal({ n: 2 })).toContain("'n' must be 1");
    expect(
      await refusal({ tool_choice: 'required', tools: [{ type: 'function', function: { name: 'f' } }] }),
    ).toContain("'tool_choice'");
    expect(await refusal({ response_format: { type: 'json_object' } })).toContain("'response_format'");
    // Nothing of the refused requests reached the conversation; tools the agent cannot call are only ignored.
    const after = await getJson<{ total: number }>(`${url}/v1/agents/helper/instances/${instance}/conversation`);
    expect(after.total).toBe(2);
    const withTools = await client.chat.completions.create({
      model: 'helper',
      user: 'alice@example.com',
      messages: ask,
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
      tool_choice: 'auto',
    });
    expect(withTools.choices[0]?.message.content).toBe('Second.');
    // One model, as OpenAI clients retrieve it; an unknown one and other OpenAI endpoints are a NotFoundError.
    expect(await client.models.retrieve('helper')).toMatchObject({ id: 'helper', object: 'model' });
    expect(await client.models.retrieve('nobody').catch((error: unknown) => error)).toBeInstanceOf(
      OpenAI.NotFoundError,
    );
    const responses = await client.responses.create({ model: 'helper', input: 'hi' }).catch((error: unknown) => error);
    expect(responses).toBeInstanceOf(OpenAI.NotFoundError);
    expect((responses as Error).message).toContain('POST /v1/chat/completions');
  }, 120_000);

  test('a turn that failed is not sent again by the client library on its own (x-should-retry: false)', async () => {
    const bundle = await agentBundle(helperModel([{ error: 'the model broke' }, { text: 'Never reached.' }]));
    const { url } = await serve(bundle);
    // The library's default: two retries of a 500.
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused', maxRetries: 2 });
    const thrown = await client.chat.completions
      .create({ model: 'helper', user: 'retry', messages: [{ role: 'user', content: 'once only' }] })
      .catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(OpenAI.InternalServerError);
    expect((thrown as { error?: { type?: string } }).error?.type).toBe('server_error');
    const conversation = await getJson<{ messages: { role: string }[] }>(
      `${url}/v1/agents/helper/instances/retry/conversation`,
    );
    expect(conversation.messages.filter((message) => message.role === 'user')).toHaveLength(1);
  }, 120_000);
});
