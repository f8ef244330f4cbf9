// gdn serve with Connections (docs/connectors.md), as real processes: a bundle written the original Goondan's way
// (a Package depending on @goondan/base, package refs, Swarm agents as { ref }) whose Connections run the Slack,
// Telegram and cron connectors of @goondan/base and a connector of its own, each in a process of its own. A fake
// Slack sender signs requests (and forges some), a fake Slack Web API and the fake Bot API record the replies.
// The same process also shows: Telegram approval buttons for a Connection's turn, the bot token stored by
// telegram__set_token, a reload (--watch) restarting only changed Connections, and a reply delivered at shutdown.
import { afterAll, describe, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeTelegramBotSettings } from '@goondan/base';
import { type FakeBotApi, startFakeBotApi } from '../../base/test/fake-bot-api.ts';
import { postSlackEvent, startFakeSlackApi } from '../../base/test/fake-slack.ts';
import { cleanupTempDirs, cliEnv, makeTempDir, startGdn, waitUntil } from './helpers.ts';

const SIGNING_SECRET = 'test-signing-secret-8f2c';
const BOT_TOKEN = '4343:connector-test-token';

function slackRequest(url: string, payload: unknown, options: { secret?: string; ageSeconds?: number } = {}) {
  return postSlackEvent(url, payload, {
    signingSecret: options.secret ?? SIGNING_SECRET,
    ...(options.ageSeconds ? { ageSeconds: options.ageSeconds } : {}),
  });
}

function bundleYaml(options: { slackApi: string; botApi: string; mark: string; reloaded?: boolean }): string {
  const model = (name: string, script: string) => `---
apiVersion: goondan.ai/v1
kind: Model
metadata: { name: ${name} }
spec: { provider: scripted, model: fixture, script: ${script.startsWith('[') ? script : `[{ text: "${script}" }]`} }
`;
  const slack = `---
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
      - match: { event: app_mention, properties: { channel_id: C-BILLING } }
        route: { agentRef: Agent/billing, instanceKeyProperty: channel_id, instanceKeyPrefix: "slack-" }
      - match: { event: app_mention }
        route: { instanceKeyProperty: user_id, instanceKeyPrefix: "slack-user-" }
`;
  // After the reload: Slack removed, cron's text changed, a second cron added; telegram and flaky unchanged.
  const cron = (name: string, text: string) => `---
apiVersion: goondan.ai/v1
kind: Connection
metadata: { name: ${name} }
spec:
  connectorRef: Connector/cron
  config:
    SCHEDULE: { value: "* * * * * *" }
    TIME_ZONE: { value: UTC }
    TEXT: { value: ${text} }
  ingress:
    rules:
      - match: { event: tick }
        route: { agentRef: Agent/triage, instanceKey: ${name === 'cron-desk' ? 'cron' : name} }
`;
  return `apiVersion: goondan.ai/v1
kind: Package
metadata:
  name: "@test/desk"
spec:
  version: "0.1.0"
  dependencies:
    - name: "@goondan/base"
      version: "^0.1.0"
${model('triage-model', 'Triage here.')}${model('billing-model', 'Billing here.')}${model(
  'clerk-model',
  '[{ toolCalls: [{ name: bash__exec, args: { command: "echo approved" } }] }, { text: "The command ran." }]',
)}${model('slow-model', '[{ toolCalls: [{ name: gate__wait, args: {} }] }, { text: "Gate passed." }]')}---
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
metadata: { name: clerk }
spec:
  modelConfig: { modelRef: Model/clerk-model }
  tools:
    - ref: { kind: Tool, name: bash, package: "@goondan/base" }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: slow }
spec:
  modelConfig: { modelRef: Model/slow-model }
  tools: [Tool/gate]
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: triage }
spec: { modelConfig: { modelRef: Model/triage-model } }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: billing }
spec: { modelConfig: { modelRef: Model/billing-model } }
---
apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: desk }
spec:
  entryAgent: Agent/triage
  agents:
    - ref: Agent/triage
    - ref: Agent/billing
    - ref: Agent/clerk
    - ref: Agent/slow
${options.reloaded ? cron('cron-two', 'Second tick') : slack}${cron('cron-desk', options.reloaded ? 'Cron tick again' : 'Cron tick')}---
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
      - route: { agentRef: Agent/clerk, instanceKeyProperty: chat_id, instanceKeyPrefix: "tg-" }
---
apiVersion: goondan.ai/v1
kind: Connector
metadata: { name: flaky }
spec:
  entry: ./flaky.ts
  events:
    - name: hello
      properties: { n: { type: number } }
    - name: slow
---
apiVersion: goondan.ai/v1
kind: Connection
metadata: { name: flaky-desk }
spec:
  connectorRef: Connector/flaky
  config:
    MARK: { value: "${options.mark}" }
  ingress:
    rules:
      - match: { event: slow }
        route: { agentRef: Agent/slow, instanceKey: slow }
      - route: { agentRef: Agent/billing, instanceKey: flaky }
`;
}

/**
 * Crashes on its first start; once restarted, emits one event and writes the agent's reply beside its mark. When
 * the test creates <mark>.slow, it emits a `slow` event (whose turn waits at the gate) and writes that reply too.
 */
const flakyConnector = `import { existsSync, writeFileSync } from 'node:fs';
export default async function flaky(ctx) {
  const mark = ctx.config.MARK;
  if (!existsSync(mark)) {
    writeFileSync(mark, 'crashed');
    throw new Error('first start fails on purpose');
  }
  ctx.onReply((reply) => {
    const file = reply.event.name === 'slow' ? mark + '.slow-reply' : mark + '.reply';
    writeFileSync(file, reply.agent + ': ' + reply.text);
  });
  await ctx.emit({ name: 'hello', message: { type: 'text', text: 'hello from flaky' }, properties: { n: 1 } });
  const timer = setInterval(() => {
    if (!existsSync(mark + '.slow')) return;
    clearInterval(timer);
    void ctx.emit({ name: 'slow', message: { type: 'text', text: 'take your time' } });
  }, 20);
  await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
  clearInterval(timer);
}
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
const botApi: FakeBotApi = startFakeBotApi({ token: BOT_TOKEN });
let server: ReturnType<typeof startGdn> | undefined;

afterAll(async () => {
  server?.proc.kill('SIGKILL');
  await Promise.all([slackApi.stop(), botApi.stop()]);
  await cleanupTempDirs();
});

const mention = (channel: string, user: string, ts: string) => ({
  type: 'event_callback',
  team_id: 'T1',
  event: { type: 'app_mention', channel, user, ts, text: `<@B1> hi from ${channel}` },
});

describe('gdn serve with Connections', () => {
  test('connectors run as supervised processes; events are routed by the ingress rules and answered', async () => {
    const dir = await makeTempDir('gdn-serve-connectors-');
    const mark = join(dir, 'flaky-mark');
    await writeFile(join(dir, 'flaky.ts'), flakyConnector);
    await writeFile(join(dir, 'gate.ts'), gateTool(dir));
    const yaml = { slackApi: slackApi.apiRoot, botApi: botApi.apiRoot, mark };
    await writeFile(join(dir, 'goondan.yaml'), bundleYaml(yaml));
    // TEST_TELEGRAM_TOKEN is not set: the token telegram__set_token stored takes its place.
    const oauthKey = randomBytes(32).toString('base64');
    writeTelegramBotSettings(dir, { token: BOT_TOKEN }, { GOONDAN_OAUTH_KEY: oauthKey });
    server = startGdn(['serve', '--bundle', dir, '--port', '0', '--watch'], {
      env: cliEnv({ TEST_SLACK_SIGNING_SECRET: SIGNING_SECRET, GOONDAN_OAUTH_KEY: oauthKey }),
    });
    await server.waitForStderr('OpenAI-compatible base URL: ', 60_000);
    await server.waitForStderr('/slack/events', 30_000);
    const events = /slack events listening on (\S+)/.exec(server.stderr)?.[1];
    const base = /base URL: (\S+)\/v1/.exec(server.stderr)?.[1];
    if (!events || !base) throw new Error(`no URLs in:\n${server.stderr}`);

    // Forged (wrong secret) and replayed (6 minutes old) requests are refused and emit nothing.
    const forged = await slackRequest(events, mention('C-FORGED', 'U9', '9.9'), { secret: 'not-the-secret' });
    expect(forged.status).toBe(401);
    const stale = await slackRequest(events, mention('C-FORGED', 'U9', '9.8'), { ageSeconds: 6 * 60 });
    expect(stale.status).toBe(401);
    const unsigned = await fetch(events, { method: 'POST', body: JSON.stringify(mention('C-FORGED', 'U9', '9.7')) });
    expect(unsigned.status).toBe(401);

    // Signed bodies that are JSON but not an object are refused, never a crash (nor Bun's page of source code).
    for (const body of [null, 7, 'text', []]) {
      const odd = await slackRequest(events, body);
      expect(odd.status).toBe(400);
      const text = await odd.text();
      expect(text).toBe('body is not a JSON object');
    }

    const challenge = await slackRequest(events, { type: 'url_verification', challenge: 'abc123' });
    expect(await challenge.json()).toEqual({ challenge: 'abc123' });

    // First rule: billing's channel goes to Agent/billing; the catch-all rule: the entry agent, keyed by user.
    expect((await slackRequest(events, mention('C-BILLING', 'U1', '1.1'))).status).toBe(200);
    expect((await slackRequest(events, mention('C-GENERAL', 'U2', '2.2'))).status).toBe(200);
    await waitUntil(() => slackApi.posted.length >= 2, 'two Slack replies');
    expect(slackApi.posted.toSorted((a, b) => a.channel.localeCompare(b.channel))).toEqual([
      { channel: 'C-BILLING', text: 'Billing here.', thread_ts: '1.1' },
      { channel: 'C-GENERAL', text: 'Triage here.', thread_ts: '2.2' },
    ]);
    const conversation = async (agent: string, key: string) =>
      (await fetch(`${base}/v1/agents/${agent}/instances/${key}/conversation`)).status;
    expect(await conversation('billing', 'slack-C-BILLING')).toBe(200);
    expect(await conversation('triage', 'slack-user-U2')).toBe(200);
    expect(server.stderr).toContain('E_CONNECTOR_SIGNATURE');
    expect(slackApi.posted.some((message) => message.channel === 'C-FORGED')).toBe(false);
    expect(server.stderr).not.toContain(SIGNING_SECRET);

    // Telegram as a Connector, with the stored token: an allowed chat is answered in its own instance; another
    // chat is refused. The turn's restricted tool call asks in the chat with buttons; a press answers it.
    expect(server.stderr).toContain('telegram: using the token stored with telegram__set_token');
    botApi.pushMessage(778, 'let me in');
    botApi.pushMessage(777, 'run the command');
    const asking = () => botApi.callsOf('sendMessage', 777).find((call) => call.payload.reply_markup);
    await botApi.waitFor(() => asking() !== undefined, 'the approval buttons');
    expect(String(asking()!.payload.text)).toContain('clerk wants to call bash__exec (restricted)');
    const buttons = (asking()!.payload.reply_markup as { inline_keyboard: { text: string; callback_data: string }[][] })
      .inline_keyboard;
    const approveOnce = buttons.flat().find((button) => button.text === 'Approve once')!;
    botApi.pushCallback(777, (asking()!.result as { message_id: number }).message_id, approveOnce.callback_data);
    const texts = () => botApi.callsOf('sendMessage', 777).map((call) => call.payload.text);
    await botApi.waitFor(() => texts().includes('The command ran.'), 'the reply after the approval');
    await botApi.waitFor(() => botApi.callsOf('editMessageText', 777).length > 0, 'the approval message updated');
    expect(String(botApi.callsOf('editMessageText', 777)[0]!.payload.text)).toEndWith(
      'Approved once by telegram:user777.',
    );
    expect(botApi.callsOf('answerCallbackQuery').map((call) => call.payload.text)).toContain('Approved once');
    expect(botApi.callsOf('sendMessage', 778)).toEqual([]);
    expect(await conversation('clerk', 'tg-777')).toBe(200);
    expect(server.stderr).toContain('E_CHANNEL_CHAT_NOT_ALLOWED');
    expect(server.stderr).not.toContain(BOT_TOKEN);

    // The connector that crashed was restarted with backoff, and its event was answered.
    const reply = () => readFile(`${mark}.reply`, 'utf8').catch(() => '');
    await waitUntil(async () => (await reply()) !== '', 'the flaky connector reply');
    expect(await reply()).toBe('billing: Billing here.');
    expect(server.stderr).toMatch(
      /\[connection flaky-desk\] E_CONNECTOR_FAILED connector flaky exited with code 1; restarting in \d+ ms/,
    );

    // The cron connector ticks into its fixed instance.
    await waitUntil(async () => (await conversation('triage', 'cron')) === 200, 'a cron tick');

    // A reload (--watch) restarts the changed Connection, stops the removed one, starts the added one; the others
    // keep their processes.
    await writeFile(join(dir, 'goondan.yaml'), bundleYaml({ ...yaml, reloaded: true }));
    await server.waitForStderr('[serve] connection cron-two: connector cron running', 30_000);
    await server.waitForStderr('[serve] connection cron-desk: connector cron running', 30_000);
    expect(server.stderr).toContain('[serve] connection cron-desk: restarted (its documents changed)');
    expect(server.stderr).toContain('[serve] connection slack-desk: stopped (removed)');
    expect(server.stderr).not.toMatch(/connection (telegram-desk|flaky-desk): restarted/);
    await waitUntil(async () => (await conversation('triage', 'cron-two')) === 200, 'a tick of the added cron');
    expect(await fetch(events).catch(() => 'closed')).toBe('closed');

    // At shutdown, a turn still running gets its reply to its connector before the connectors stop.
    await writeFile(`${mark}.slow`, '');
    await waitUntil(() => existsSync(join(dir, 'gate-waiting')), 'the slow turn at the gate');
    server.proc.kill('SIGTERM');
    await server.waitForStderr('SIGTERM: no new requests', 10_000);
    await writeFile(join(dir, 'gate-open'), '');
    const result = await server.finish();
    expect(result.exitCode).toBe(143);
    expect(await readFile(`${mark}.slow-reply`, 'utf8')).toBe('slow: Gate passed.');
  }, 120_000);
});
