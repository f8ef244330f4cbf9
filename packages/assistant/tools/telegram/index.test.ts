import { afterAll, describe, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTelegramBotSettings, telegramBotSettingsPath } from '@goondan/base';
import { type JsonObject, redactKnownSecrets } from '@goondan/core';
import { createTestToolContext } from '@goondan/core/testing';
import { handlers } from './index.ts';

const GOOD = `123456789:${'A'.repeat(20)}goodtoken${'b'.repeat(6)}`;
const REFUSED = `987654321:${'C'.repeat(20)}refusedtoken${'d'.repeat(6)}`;
const savedKey = process.env.GOONDAN_OAUTH_KEY;
const savedToken = process.env.TELEGRAM_BOT_TOKEN;
process.env.GOONDAN_OAUTH_KEY = randomBytes(32).toString('base64');
delete process.env.TELEGRAM_BOT_TOKEN;
const root = mkdtempSync(join(tmpdir(), 'assistant-telegram-'));
// Tokens the fake API answers as a broken proxy would: an HTML error page quoting the URL, JSON of another API,
// an endless answer.
const PAGE = `111111111:${'E'.repeat(20)}pagetoken${'f'.repeat(6)}`;
const ODD = `222222222:${'G'.repeat(20)}oddtoken${'h'.repeat(6)}`;
const ENDLESS = `333333333:${'I'.repeat(20)}endlesstoken${'j'.repeat(6)}`;
let endlessPulled = 0;
const sent: { token: string; method: string; body: Record<string, unknown> }[] = [];

// A fake Telegram Bot API on 127.0.0.1 (grammY's apiRoot points at it).
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(request) {
    const match = /^\/bot([^/]+)\/(\w+)$/.exec(new URL(request.url).pathname);
    if (!match) return new Response('no', { status: 404 });
    const [, token = '', method = ''] = match;
    const body = (await request.json().catch(() => ({}))) as Record<string, unknown>;
    sent.push({ token, method, body });
    if (token === PAGE)
      return new Response(`<html><body>502 Bad Gateway: POST ${request.url}</body></html>`, {
        status: 502,
        headers: { 'content-type': 'text/html' },
      });
    if (token === ODD) return Response.json({ result: 'this is not the Bot API' });
    if (token === ENDLESS) {
      const chunk = new Uint8Array(64 * 1024).fill(32);
      let pulled = 0;
      const stream = new ReadableStream({
        pull(controller) {
          if (pulled >= 100 * 1024 * 1024) return controller.close();
          pulled += chunk.byteLength;
          endlessPulled = Math.max(endlessPulled, pulled);
          controller.enqueue(chunk);
        },
      });
      return new Response(stream, { headers: { 'content-type': 'application/json' } });
    }
    if (token !== GOOD)
      return Response.json({ ok: false, error_code: 401, description: 'Unauthorized' }, { status: 401 });
    if (method === 'getMe') {
      return Response.json({
        ok: true,
        result: {
          id: 123456789,
          is_bot: true,
          first_name: '비서',
          username: 'goondan_test_bot',
          can_join_groups: true,
        },
      });
    }
    if (method === 'sendMessage' && body.chat_id === 999) {
      return Response.json({ ok: false, error_code: 400, description: 'Bad Request: chat not found' }, { status: 400 });
    }
    if (method === 'sendMessage' && body.chat_id === 429) {
      return Response.json(
        { ok: false, error_code: 429, description: 'Too Many Requests: retry after 7', parameters: { retry_after: 7 } },
        { status: 429 },
      );
    }
    if (method === 'sendMessage') {
      return Response.json({
        ok: true,
        result: { message_id: 42, date: 1795500000, chat: { id: body.chat_id, type: 'private' }, text: body.text },
      });
    }
    return Response.json({ ok: false, error_code: 404, description: 'Not Found' }, { status: 404 });
  },
});
afterAll(() => {
  server.stop(true);
  rmSync(root, { recursive: true, force: true });
  if (savedKey === undefined) delete process.env.GOONDAN_OAUTH_KEY;
  else process.env.GOONDAN_OAUTH_KEY = savedKey;
  if (savedToken !== undefined) process.env.TELEGRAM_BOT_TOKEN = savedToken;
});

const apiRoot = `http://127.0.0.1:${server.port}`;
function bundle(name: string, config: JsonObject = {}) {
  const dir = join(root, name);
  const workdir = join(dir, '.goondan', 'workspaces', 'assistant', 'default');
  mkdirSync(workdir, { recursive: true });
  return { dir, ctx: createTestToolContext({ workdir, config: { apiRoot, ...config } }) };
}

async function failure(run: () => Promise<unknown>) {
  try {
    return { code: 'none', message: JSON.stringify(await run()), suggestion: '' };
  } catch (error) {
    return error as { code: string; message: string; suggestion: string };
  }
}

describe('telegram tools against a fake Bot API', () => {
  test('set_token checks the token with getMe, stores it sealed (0600), and never answers it', async () => {
    const { dir, ctx } = bundle('stored');
    expect((await failure(() => handlers.set_token(ctx, { token: 'not a token' }))).code).toBe('E_TOOL_INVALID_ARGS');
    const refused = await failure(() => handlers.set_token(ctx, { token: REFUSED }));
    expect(refused.code).toBe('E_SERVICE_AUTH');
    expect(`${refused.message} ${refused.suggestion}`).not.toContain(REFUSED);
    expect(readTelegramBotSettings(dir).token).toBeNull();

    const stored = await handlers.set_token(ctx, { token: GOOD });
    expect(stored).toEqual({
      stored: true,
      bot: { id: 123456789, username: 'goondan_test_bot', firstName: '비서' },
      enabled: null,
      tokenStored: true,
    });
    expect(JSON.stringify(stored)).not.toContain(GOOD);
    const file = telegramBotSettingsPath(dir);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).not.toContain('goodtoken');
    expect(readTelegramBotSettings(dir).token).toBe(GOOD);
    // Known as a secret: every log and trace sink masks it.
    expect(redactKnownSecrets(`token=${GOOD}`)).not.toContain(GOOD);

    expect(await handlers.get_me(ctx)).toMatchObject({
      bot: { username: 'goondan_test_bot', canJoinGroups: true },
      tokenFrom: 'stored',
    });
    expect(sent.at(-1)?.token).toBe(GOOD);
  });

  test('send_message as plain text; an unknown chat, a rate limit and a chat outside allowedChatIds are coded', async () => {
    const { ctx } = bundle('send', { token: { value: GOOD } });
    expect(await handlers.send_message(ctx, { chat_id: 5, text: '안녕하세요 *굵게 아님*' })).toEqual({
      sent: true,
      chatId: 5,
      messageId: 42,
      date: '2026-11-24T06:00:00.000Z',
    });
    expect(sent.at(-1)?.body).toEqual({ chat_id: 5, text: '안녕하세요 *굵게 아님*' });
    expect((await failure(() => handlers.send_message(ctx, { chat_id: 999, text: 'x' }))).code).toBe(
      'E_SERVICE_NOT_FOUND',
    );
    const limited = await failure(() => handlers.send_message(ctx, { chat_id: 429, text: 'x' }));
    expect(limited).toMatchObject({ code: 'E_SERVICE_RATE_LIMITED' });
    expect(limited.suggestion).toContain('7 s');
    const fenced = bundle('fenced', { token: { value: GOOD }, allowedChatIds: [5] });
    const before = sent.length;
    expect((await failure(() => handlers.send_message(fenced.ctx, { chat_id: 6, text: 'x' }))).code).toBe(
      'E_TOOL_INVALID_ARGS',
    );
    expect(sent.length).toBe(before);
  });

  test('enable keeps the flag the channel reads; a bot without any token, a refused env token, an unreachable API and answers not of the Bot API are coded', async () => {
    const { dir, ctx } = bundle('enable');
    const none = await failure(() => handlers.enable(ctx, { enabled: true }));
    expect(none.code).toBe('E_SERVICE_NOT_CONFIGURED');
    expect(none.suggestion).toContain('TELEGRAM_BOT_TOKEN');
    expect(readTelegramBotSettings(dir).enabled).toBeNull();
    expect(await handlers.enable(ctx, { enabled: true, token: GOOD })).toMatchObject({
      enabled: true,
      tokenStored: true,
      bot: { id: 123456789 },
    });
    expect(await handlers.enable(ctx, { enabled: false })).toMatchObject({ enabled: false, tokenStored: true });
    expect(readTelegramBotSettings(dir)).toMatchObject({ enabled: false, token: GOOD });

    const refused = bundle('refused', { token: { value: REFUSED } });
    const auth = await failure(() => handlers.get_me(refused.ctx));
    expect(auth.code).toBe('E_SERVICE_AUTH');
    expect(auth.suggestion).toContain('config.token');
    const page = await failure(() => handlers.set_token(bundle('page').ctx, { token: PAGE }));
    expect(page.code).toBe('E_SERVICE_FAILED');
    expect(page.message).toContain('502 Bad Gateway: POST');
    expect(page.message).not.toContain(PAGE);
    const odd = await failure(() => handlers.set_token(bundle('odd').ctx, { token: ODD }));
    expect([odd.code, odd.message]).toEqual(['E_SERVICE_RESPONSE_INVALID', expect.stringContaining('not a Bot API')]);
    const endless = await failure(() => handlers.set_token(bundle('endless').ctx, { token: ENDLESS }));
    expect(endless.code).toBe('E_SERVICE_RESPONSE_TOO_LARGE');
    expect(endlessPulled).toBeLessThan(40 * 1024 * 1024);
    const closed = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('') });
    const port = closed.port;
    closed.stop(true);
    const away = bundle('away', { token: { value: GOOD }, apiRoot: `http://127.0.0.1:${port}` });
    const unreachable = await failure(() => handlers.get_me(away.ctx));
    expect(unreachable.code).toBe('E_SERVICE_UNREACHABLE');
    expect(unreachable.message).not.toContain(GOOD);
  });
});
