import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type AgentNotification,
  type ApprovalRecord,
  type Bundle,
  instancePaths,
  loadBundle,
  Orchestrator,
  resolveSwarm,
  type ScriptedStep,
} from '@goondan/core';
import type { BundleChannels } from '../extensions/telegram/start-bundle-channels.ts';
import { startBundleChannels } from '../extensions/telegram/start-bundle-channels.ts';
import { startTelegramChannel } from '../extensions/telegram/start-telegram-channel.ts';
import { baseBundleDir } from '../src/base-bundle-dir.ts';
import { type FakeBotApi, startFakeBotApi } from './fake-bot-api.ts';
import { cleanup, errorCodeOf, makeTempDir } from './helpers.ts';

const TOKEN = '123456:test-token';
const ALLOWED = [111, 222];

/** A bundle whose one Agent answers the fake bot: scripted model, Tool/bash (asks for approval by default). */
async function botBundle(dir: string, apiRoot: string, script: ScriptedStep[]): Promise<Bundle> {
  const documents = [
    {
      apiVersion: 'goondan.ai/v1',
      kind: 'Model',
      metadata: { name: 'bot-model' },
      spec: { provider: 'scripted', model: 'bot', script },
    },
    {
      apiVersion: 'goondan.ai/v1',
      kind: 'Agent',
      metadata: { name: 'assistant' },
      spec: {
        modelConfig: { modelRef: 'Model/bot-model' },
        tools: ['Tool/bash'],
        extensions: [
          {
            ref: 'Extension/telegram',
            config: { token: { valueFrom: { env: 'TEST_TELEGRAM_TOKEN' } }, allowedChatIds: ALLOWED, apiRoot },
          },
        ],
      },
    },
    {
      apiVersion: 'goondan.ai/v1',
      kind: 'Swarm',
      metadata: { name: 'bot' },
      spec: { entryAgent: 'Agent/assistant', agents: ['Agent/assistant'] },
    },
  ];
  await writeFile(join(dir, 'goondan.yaml'), documents.map((document) => JSON.stringify(document)).join('\n---\n'));
  const loaded = await loadBundle({ dir, libraries: [baseBundleDir] });
  if (!loaded.bundle) throw new Error(`fixture bundle is invalid: ${JSON.stringify(loaded.problems, null, 2)}`);
  return loaded.bundle;
}

interface Host {
  dir: string;
  bundle: Bundle;
  api: FakeBotApi;
  orchestrator: Orchestrator;
  channels: BundleChannels;
  logs: string[];
  notifications: AgentNotification[];
  stop(): Promise<void>;
}

/** What `gdn serve` does for a channel: an Orchestrator with notifications, and the bundle's channels. */
async function startHost(script: ScriptedStep[]): Promise<Host> {
  const dir = await makeTempDir('goondan-telegram-');
  const api = startFakeBotApi({ token: TOKEN });
  const bundle = await botBundle(dir, api.apiRoot, script);
  const notifications: AgentNotification[] = [];
  const logs: string[] = [];
  const log = (...args: unknown[]) => logs.push(args.map(String).join(' '));
  let channels: BundleChannels | undefined;
  const orchestrator = new Orchestrator({
    bundle,
    topology: resolveSwarm(bundle)!,
    instanceKey: 'default',
    libraries: [baseBundleDir],
    stateFile: null,
    observe: true,
    env: { ...process.env, TEST_TELEGRAM_TOKEN: TOKEN },
    onOutput: (line) => logs.push(line),
    onNotification: (notification) => {
      notifications.push(notification);
      channels?.notify(notification);
    },
  });
  channels = await startBundleChannels({
    bundle,
    orchestrator,
    logger: { info: log, warn: log, error: log },
    env: { TEST_TELEGRAM_TOKEN: TOKEN },
  });
  const started = channels;
  return {
    dir,
    bundle,
    api,
    orchestrator,
    channels: started,
    logs,
    notifications,
    async stop() {
      await started.stop();
      await orchestrator.shutdown();
      await api.stop();
      await cleanup(dir);
    },
  };
}

const textsTo = (api: FakeBotApi, chatId: number) =>
  api.callsOf('sendMessage', chatId).map((call) => String(call.payload.text));

describe('telegram channel: messages', () => {
  const first = 'a'.repeat(3000);
  const second = 'b'.repeat(3000);
  let host: Host;

  beforeAll(async () => {
    host = await startHost([{ text: `${first}\n\n${second}` }]);
  });
  afterAll(async () => {
    await host?.stop();
  });

  test('a message gets the reply, split at paragraph boundaries under 4096, with typing shown first', async () => {
    const { api } = host;
    api.pushMessage(111, 'hello');
    await api.waitFor(() => textsTo(api, 111).length >= 2, 'the two pieces of the reply');
    expect(textsTo(api, 111)).toEqual([first, second]);
    const typing = api.callsOf('sendChatAction', 111);
    expect(typing[0]?.payload.action).toBe('typing');
    expect(typing[0]!.at).toBeLessThanOrEqual(api.callsOf('sendMessage', 111)[0]!.at);
    // Plain text: nothing Telegram would parse as Markdown or HTML.
    expect(api.callsOf('sendMessage', 111).every((call) => call.payload.parse_mode === undefined)).toBe(true);
  });

  test('each chat is its own agent instance, with its own conversation', async () => {
    const { api, orchestrator } = host;
    api.pushMessage(222, 'hi from another chat');
    await api.waitFor(() => textsTo(api, 222).length >= 2, 'the reply in chat 222');
    // A fresh instance plays the script from its start: chat 222 got the same first reply as chat 111.
    expect(textsTo(api, 222)).toEqual([first, second]);
    const keys = orchestrator.list().map((info) => `${info.agent}/${info.instanceKey}`);
    expect(keys).toContain('assistant/telegram-111');
    expect(keys).toContain('assistant/telegram-222');
  });

  test('a chat not in allowedChatIds is refused with a coded log line, nothing sent and nothing written', async () => {
    const { api, orchestrator, logs, bundle } = host;
    api.pushMessage(333, 'let me in');
    await api.waitFor(() => logs.some((line) => line.includes('E_CHANNEL_CHAT_NOT_ALLOWED')), 'the refusal line');
    expect(logs.find((line) => line.includes('E_CHANNEL_CHAT_NOT_ALLOWED'))).toContain('chat 333');
    // The next update is handled after it: once its reply is out, the refused one certainly did nothing.
    api.pushSticker(111);
    await api.waitFor(() => textsTo(api, 111).includes('Only text messages are read for now.'), 'the sticker note');
    expect(api.calls.filter((call) => Number(call.payload.chat_id) === 333)).toEqual([]);
    expect(orchestrator.list().some((info) => info.instanceKey === 'telegram-333')).toBe(false);
    const { databaseFile } = instancePaths({
      rootDir: bundle.rootDir,
      agentName: 'assistant',
      instanceKey: 'telegram-333',
    });
    expect(existsSync(databaseFile)).toBe(false);
  });

  test('a 429 from sendMessage is retried after retry_after, and the reply still arrives', async () => {
    const { api } = host;
    api.failNext('sendMessage', { error_code: 429, description: 'Too Many Requests: retry after 1', retry_after: 1 });
    const before = textsTo(api, 222).length;
    api.pushMessage(222, 'again');
    await api.waitFor(() => textsTo(api, 222).length > before, 'the reply after the rate limit');
    const attempts = api.calls.filter((call) => call.method === 'sendMessage' && Number(call.payload.chat_id) === 222);
    const limited = attempts.findIndex((call) => call.status === 429);
    expect(limited).toBeGreaterThanOrEqual(0);
    const retried = attempts[limited + 1]!;
    expect(retried.status).toBe(200);
    expect(retried.payload.text).toBe(attempts[limited]!.payload.text);
    expect(retried.at - attempts[limited]!.at).toBeGreaterThanOrEqual(1000);
  });

  test('a 5xx from sendMessage (Bad Gateway) is tried again after a pause, and the reply arrives once', async () => {
    const { api } = host;
    api.failNext('sendMessage', { error_code: 502, description: 'Bad Gateway' }, 2);
    const before = textsTo(api, 222).length;
    api.pushMessage(222, 'through the gateway');
    await api.waitFor(() => textsTo(api, 222).length > before, 'the reply after two 502s');
    const attempts = api.calls.filter((call) => call.method === 'sendMessage' && Number(call.payload.chat_id) === 222);
    const failed = attempts.findIndex((call) => call.status === 502);
    expect(attempts.slice(failed).map((call) => call.status)).toEqual([502, 502, 200]);
    expect(new Set(attempts.slice(failed).map((call) => call.payload.text)).size).toBe(1);
  });
});

describe('telegram channel: approvals', () => {
  let host: Host;

  beforeAll(async () => {
    host = await startHost([
      { toolCalls: [{ name: 'bash__exec', args: { command: 'echo approved-from-telegram' } }] },
      { text: 'The command ran.' },
    ]);
  });
  afterAll(async () => {
    await host?.stop();
  });

  test('a restricted tool asks in the chat; a button press answers it, and the turn goes on', async () => {
    const { api, notifications } = host;
    api.pushMessage(111, 'run it');
    await api.waitFor(() => api.callsOf('sendMessage', 111).some((call) => call.payload.reply_markup), 'the approval');
    const asked = api.callsOf('sendMessage', 111).find((call) => call.payload.reply_markup)!;
    expect(String(asked.payload.text)).toContain('assistant wants to call bash__exec (restricted)');
    const buttons = (
      asked.payload.reply_markup as { inline_keyboard: { text: string; callback_data: string }[][] }
    ).inline_keyboard.flat();
    expect(buttons.map((button) => button.text)).toEqual(['Approve once', 'Approve for this chat', 'Deny']);
    const messageId = (asked.result as { message_id: number }).message_id;
    // Pressed in another allowed chat, the button does not answer chat 111's approval.
    const foreign = api.pushCallback(222, messageId, buttons[0]!.callback_data);
    await api.waitFor(
      () => api.callsOf('answerCallbackQuery').some((call) => call.payload.callback_query_id === foreign),
      'the answer to the foreign press',
    );
    const refused = api.callsOf('answerCallbackQuery').find((call) => call.payload.callback_query_id === foreign)!;
    expect(refused.payload.text).toBe('This approval is no longer waiting.');
    const pending = notifications.filter((n) => n.event.type === 'runtime.approval.resolved');
    expect(pending).toEqual([]);

    const pressed = api.pushCallback(111, messageId, buttons[0]!.callback_data);
    await api.waitFor(() => textsTo(api, 111).includes('The command ran.'), 'the reply after approval');
    const answer = api.callsOf('answerCallbackQuery').find((call) => call.payload.callback_query_id === pressed)!;
    expect(answer.payload.text).toBe('Approved once');
    const resolved = notifications.find((n) => n.event.type === 'runtime.approval.resolved')!.event
      .data as unknown as ApprovalRecord;
    expect(resolved).toMatchObject({ status: 'approved', scope: 'once', decidedBy: 'telegram:user111' });
    const toolEnd = notifications.find((n) => n.event.type === 'runtime.tool.end')!.event.data as {
      result: { status: string; output: { stdout: string } };
    };
    expect(toolEnd.result.status).toBe('ok');
    expect(toolEnd.result.output.stdout).toContain('approved-from-telegram');
    await api.waitFor(() => api.callsOf('editMessageText', 111).length > 0, 'the approval message updated');
    expect(String(api.callsOf('editMessageText', 111)[0]!.payload.text)).toContain(
      'Approved once by telegram:user111.',
    );
  });

  test('Deny refuses the call: the model is told E_APPROVAL_DENIED and the message says who denied it', async () => {
    const { api, notifications } = host;
    api.pushMessage(222, 'run it here too');
    await api.waitFor(() => api.callsOf('sendMessage', 222).some((call) => call.payload.reply_markup), 'the approval');
    const asked = api.callsOf('sendMessage', 222).find((call) => call.payload.reply_markup)!;
    const buttons = (
      asked.payload.reply_markup as { inline_keyboard: { text: string; callback_data: string }[][] }
    ).inline_keyboard.flat();
    const messageId = (asked.result as { message_id: number }).message_id;
    api.pushCallback(222, messageId, buttons.find((button) => button.text === 'Deny')!.callback_data);
    await api.waitFor(() => api.callsOf('editMessageText', 222).length > 0, 'the approval message updated');
    expect(String(api.callsOf('editMessageText', 222)[0]!.payload.text)).toContain('Denied by telegram:user222.');
    await api.waitFor(
      () => notifications.some((n) => n.instanceKey === 'telegram-222' && n.event.type === 'runtime.tool.end'),
      'the refused call',
    );
    const toolEnd = notifications.find((n) => n.instanceKey === 'telegram-222' && n.event.type === 'runtime.tool.end')!
      .event.data as { result: { status: string; error?: { code: string } } };
    expect(toolEnd.result).toMatchObject({ status: 'error', error: { code: 'E_APPROVAL_DENIED' } });
  });
});

describe('telegram channel: start', () => {
  test('a token Telegram refuses stops the start with E_CHANNEL_AUTH, before any polling', async () => {
    const api = startFakeBotApi({ token: TOKEN });
    try {
      const logger = { info() {}, warn() {}, error() {} };
      const orchestrator = { request: () => Promise.reject(new Error('unused')), answerApproval: () => false };
      const started = startTelegramChannel({
        agent: 'assistant',
        config: { token: { value: '999:wrong' }, allowedChatIds: [1], apiRoot: api.apiRoot },
        orchestrator,
        logger,
      });
      expect(await errorCodeOf(started)).toBe('E_CHANNEL_AUTH');
      expect(api.calls.map((call) => `${call.method} ${call.status}`)).toEqual(['getMe 401']);
    } finally {
      await api.stop();
    }
  });
});
