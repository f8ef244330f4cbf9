// gdn serve with the Slack and Telegram connectors of @goondan/base, as real processes, around a shutdown
// (docs/connectors.md#processes): an event that arrives once the host takes no more events is not confirmed to its
// platform — a Slack delivery is answered 503 (never 200) and its retry is taken after the restart, a Telegram
// update is left unacknowledged and fetched again by the next start — while the turn still running gets its reply.
// And a Slack mention delivered as app_mention and as message runs one turn.
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type FakeBotApi, startFakeBotApi } from '../../base/test/fake-bot-api.ts';
import { postSlackEvent, startFakeSlackApi } from '../../base/test/fake-slack.ts';
import { cleanupTempDirs, cliEnv, makeTempDir, startGdn, waitUntil } from './helpers.ts';

const SIGNING_SECRET = 'shutdown-signing-secret-5d1';
const BOT_TOKEN = '4646:shutdown-test-token';

const bundleYaml = (options: { slackApi: string; botApi: string }) => `apiVersion: goondan.ai/v1
kind: Package
metadata:
  name: "@test/shutdown"
spec:
  version: "0.1.0"
  dependencies:
    - name: "@goondan/base"
      version: "^0.1.0"
---
apiVersion: goondan.ai/v1
kind: Model
metadata: { name: desk-model }
spec: { provider: scripted, model: fixture, script: [{ text: "Desk here." }] }
---
apiVersion: goondan.ai/v1
kind: Model
metadata: { name: slow-model }
spec: { provider: scripted, model: fixture, script: [{ toolCalls: [{ name: gate__wait, args: {} }] }, { text: "Gate passed." }] }
---
apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: gate }
spec:
  entry: ./gate.ts
  exports:
    - name: wait
      description: Waits until the test opens the gate
      parameters: { type: object, properties: {} }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: desk }
spec: { modelConfig: { modelRef: Model/desk-model } }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: slow }
spec:
  modelConfig: { modelRef: Model/slow-model }
  tools: [Tool/gate]
---
apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: shutdown }
spec:
  entryAgent: Agent/desk
  agents: [{ ref: Agent/desk }, { ref: Agent/slow }]
---
apiVersion: goondan.ai/v1
kind: Connection
metadata: { name: slack-desk }
spec:
  connectorRef: { kind: Connector, name: slack, package: "@goondan/base" }
  secrets:
    SLACK_SIGNING_SECRET: { valueFrom: { env: TEST_SLACK_SIGNING_SECRET } }
    SLACK_BOT_TOKEN: { value: xoxb-test }
  config:
    PORT: { value: "0" }
    API_ROOT: { value: "${options.slackApi}" }
  ingress:
    rules:
      - match: { event: app_mention, properties: { channel_id: C-SLOW } }
        route: { agentRef: Agent/slow, instanceKey: slow }
      - route: { instanceKeyProperty: channel_id, instanceKeyPrefix: "slack-" }
---
apiVersion: goondan.ai/v1
kind: Connection
metadata: { name: telegram-desk }
spec:
  connectorRef: { kind: Connector, name: telegram, package: "@goondan/base" }
  secrets:
    TELEGRAM_BOT_TOKEN: { valueFrom: { env: TEST_TELEGRAM_TOKEN } }
  config:
    API_ROOT: { value: "${options.botApi}" }
    ALLOWED_CHAT_IDS: { value: "777" }
    POLL_TIMEOUT_SECONDS: { value: "1" }
  ingress:
    rules:
      - route: { instanceKeyProperty: chat_id, instanceKeyPrefix: "tg-" }
`;

/** Tool/gate: says it is waiting, then waits until the test opens the gate (a file). */
const gateTool = (dir: string) => `import { existsSync, writeFileSync } from 'node:fs';
export const handlers = {
  wait: async () => {
    writeFileSync(${JSON.stringify(join(dir, 'gate-waiting'))}, 'waiting');
    while (!existsSync(${JSON.stringify(join(dir, 'gate-open'))})) await Bun.sleep(20);
    return 'open';
  },
};
`;

const slackApi = startFakeSlackApi();

const slackRequest = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
  postSlackEvent(url, payload, { signingSecret: SIGNING_SECRET, headers });
const botApi: FakeBotApi = startFakeBotApi({ token: BOT_TOKEN });
const servers: ReturnType<typeof startGdn>[] = [];

afterAll(async () => {
  for (const server of servers) server.proc.kill('SIGKILL');
  await Promise.all([slackApi.stop(), botApi.stop()]);
  await cleanupTempDirs();
});

/** An event_callback as Slack sends it to an app whose bot user is UBOT. */
const delivery = (eventId: string, type: 'app_mention' | 'message', channel: string, ts: string, text: string) => ({
  type: 'event_callback',
  team_id: 'T1',
  event_id: eventId,
  authorizations: [{ team_id: 'T1', user_id: 'UBOT', is_bot: true }],
  event: { type, channel, user: 'U1', ts, text, channel_type: 'channel' },
});

/** gdn serve on the bundle, once its Slack connector listens and its Telegram connector polls: the events URL. */
async function serve(dir: string) {
  const server = startGdn(['serve', '--bundle', dir, '--port', '0'], {
    env: cliEnv({ TEST_SLACK_SIGNING_SECRET: SIGNING_SECRET, TEST_TELEGRAM_TOKEN: BOT_TOKEN }),
  });
  servers.push(server);
  await server.waitForStderr('[serve] connection telegram-desk: connector telegram running', 60_000);
  await server.waitForStderr('[serve] connection slack-desk: connector slack running', 60_000);
  const events = /slack events listening on (\S+)/.exec(server.stderr)?.[1];
  if (!events) throw new Error(`no Slack URL in:\n${server.stderr}`);
  return { server, events };
}

const repliesIn = (channel: string) => slackApi.posted.filter((message) => message.channel === channel);
const telegramReplies = () => botApi.callsOf('sendMessage', 777).map((call) => call.payload.text);

describe('gdn serve connectors around a shutdown', () => {
  test('a mention delivered twice runs one turn; events arriving during shutdown are not confirmed and come again', async () => {
    const dir = await makeTempDir('gdn-serve-connectors-shutdown-');
    await writeFile(join(dir, 'gate.ts'), gateTool(dir));
    await writeFile(join(dir, 'goondan.yaml'), bundleYaml({ slackApi: slackApi.apiRoot, botApi: botApi.apiRoot }));
    const first = await serve(dir);

    // One message that mentions the bot, as Slack delivers it to an app subscribed to app_mention and to
    // message.channels: a message and an app_mention, same channel and ts, different event ids. One turn answers;
    // the plain message after it is the next turn of the same instance (turns of an instance run in order).
    const [message, appMention] = await Promise.all([
      slackRequest(first.events, delivery('Ev-M1', 'message', 'C-GEN', '5.1', '<@UBOT> hello')),
      slackRequest(first.events, delivery('Ev-A1', 'app_mention', 'C-GEN', '5.1', '<@UBOT> hello')),
    ]);
    expect([message.status, appMention.status]).toEqual([200, 200]);
    expect((await slackRequest(first.events, delivery('Ev-P1', 'message', 'C-GEN', '5.2', 'and more'))).status).toBe(
      200,
    );
    await waitUntil(() => repliesIn('C-GEN').some((reply) => reply.thread_ts === '5.2'), 'the reply to 5.2');
    expect(repliesIn('C-GEN').map((reply) => reply.thread_ts)).toEqual(['5.1', '5.2']);

    // Telegram works before the shutdown: a message is answered (and so confirmed).
    botApi.pushMessage(777, 'before the shutdown');
    await botApi.waitFor(() => telegramReplies().length === 1, 'the Telegram reply');

    // A turn still running holds the drain open; then SIGTERM.
    expect((await slackRequest(first.events, delivery('Ev-S1', 'app_mention', 'C-SLOW', '6.1', 'wait'))).status).toBe(
      200,
    );
    await waitUntil(() => existsSync(join(dir, 'gate-waiting')), 'the slow turn at the gate');
    first.server.proc.kill('SIGTERM');
    await first.server.waitForStderr('[serve] connections take no more events', 10_000);

    // Slack: answered 503, so Slack delivers it again; never 200.
    const during = delivery('Ev-D1', 'app_mention', 'C-GEN', '7.1', '<@UBOT> during the shutdown');
    expect((await slackRequest(first.events, during)).status).toBe(503);
    // Telegram: the update is fetched, not taken, and left unacknowledged.
    botApi.pushMessage(777, 'during the shutdown');
    await first.server.waitForStderr('left with Telegram (gdn serve takes no more events)', 10_000);

    await writeFile(join(dir, 'gate-open'), '');
    expect((await first.server.finish()).exitCode).toBe(143);
    // The running turn's reply was still delivered; the events of the shutdown ran no turn.
    expect(repliesIn('C-SLOW').map((reply) => reply.text)).toEqual(['Gate passed.']);
    expect(repliesIn('C-GEN').map((reply) => reply.thread_ts)).toEqual(['5.1', '5.2']);
    expect(telegramReplies()).toEqual(['Desk here.']);

    // The next start: the Telegram update is fetched again and answered; Slack's retry of its delivery is taken.
    const second = await serve(dir);
    await botApi.waitFor(() => telegramReplies().length === 2, 'the reply to the update left with Telegram');
    const retried = await slackRequest(second.events, during, {
      'x-slack-retry-num': '1',
      'x-slack-retry-reason': 'http_error',
    });
    expect(retried.status).toBe(200);
    await waitUntil(() => repliesIn('C-GEN').some((reply) => reply.thread_ts === '7.1'), 'the reply to the retry');
    const conversation = (await (
      await fetch(
        `${/base URL: (\S+)\/v1/.exec(second.server.stderr)?.[1]}/v1/agents/desk/instances/tg-777/conversation`,
      )
    ).json()) as { messages: { role: string; content: unknown }[] };
    expect(JSON.stringify(conversation.messages.filter((entry) => entry.role === 'user'))).toContain(
      'during the shutdown',
    );
    second.server.proc.kill('SIGTERM');
    expect((await second.server.finish()).exitCode).toBe(143);
    expect(repliesIn('C-GEN').map((reply) => reply.thread_ts)).toEqual(['5.1', '5.2', '7.1']);
  }, 180_000);
});
