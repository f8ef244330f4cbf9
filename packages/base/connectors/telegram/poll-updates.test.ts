import { afterEach, describe, expect, test } from 'bun:test';
import { Bot } from 'grammy';
import { type FakeBotApi, startFakeBotApi } from '../../test/fake-bot-api.ts';
import { pollUpdates } from './poll-updates.ts';

const TOKEN = '4545:poll-updates-token';
const apis: FakeBotApi[] = [];
afterEach(async () => {
  for (const api of apis.splice(0)) await api.stop();
});

function fakeApi() {
  const api = startFakeBotApi({ token: TOKEN });
  apis.push(api);
  return api;
}

/**
 * A bot on the fake API whose message handler calls `take(text)`; pollUpdates runs until `take` stops it (a
 * refusal) or the test aborts `stop`.
 */
function poll(api: FakeBotApi, take: (text: string, stop: AbortController) => void | Promise<void>) {
  const bot = new Bot(TOKEN, { client: { apiRoot: api.apiRoot } });
  // What getMe answers, as the connector sets it before polling.
  bot.botInfo = { id: 7, is_bot: true, first_name: 'Bot', username: 'test_bot' } as Bot['botInfo'];
  const stop = new AbortController();
  const errors: unknown[] = [];
  bot.on('message', (update) => take(update.message.text ?? '', stop));
  const done = pollUpdates({
    bot,
    timeoutSeconds: 1,
    allowedUpdates: ['message'],
    signal: stop.signal,
    onError: (thrown) => errors.push(thrown),
  });
  return { done, stop, errors };
}

const refusal = () => Object.assign(new Error('gdn serve takes no more events'), { code: 'E_AGENT_SHUTTING_DOWN' });
const offsets = (api: FakeBotApi) => api.callsOf('getUpdates').map((call) => call.payload.offset);

describe('pollUpdates', () => {
  test('an update the host refused ends the poll unconfirmed: the next poll fetches it and those after it', async () => {
    const api = fakeApi();
    for (const text of ['first', 'second', 'third']) api.pushMessage(777, text);
    const seen: string[] = [];
    await poll(api, (text) => {
      seen.push(text);
      if (text === 'second') throw refusal();
    }).done;
    expect(seen).toEqual(['first', 'second']);
    // Confirmed up to the refused update (id 2), never past it.
    expect(Math.max(...offsets(api).map(Number).filter(Number.isFinite))).toBe(2);

    const again: string[] = [];
    const next = poll(api, (text, stop) => {
      again.push(text);
      if (text === 'third') stop.abort();
    });
    await next.done;
    expect(again).toEqual(['second', 'third']);
    expect(api.callsOf('getUpdates').at(-1)?.payload).toMatchObject({ offset: 4, limit: 1, timeout: 0 });
  });

  test('stopping confirms the updates taken, so the next poll does not fetch them again', async () => {
    const api = fakeApi();
    const first = poll(api, (_text, stop) => stop.abort());
    api.pushMessage(777, 'taken');
    await first.done;
    api.pushMessage(777, 'later');
    const seen: string[] = [];
    await poll(api, (text, stop) => {
      seen.push(text);
      stop.abort();
    }).done;
    expect(seen).toEqual(['later']);
  });

  test('an update whose handler failed otherwise is reported and passed (it would fail again)', async () => {
    const api = fakeApi();
    api.pushMessage(777, 'broken');
    api.pushMessage(777, 'fine');
    const seen: string[] = [];
    const run = poll(api, (text, stop) => {
      seen.push(text);
      if (text === 'broken') throw new Error('a bug in the handler');
      stop.abort();
    });
    await run.done;
    expect(seen).toEqual(['broken', 'fine']);
    expect(String(run.errors[0])).toContain('a bug in the handler');
    api.pushMessage(777, 'new');
    const next: string[] = [];
    await poll(api, (text, stop) => {
      next.push(text);
      stop.abort();
    }).done;
    expect(next).toEqual(['new']);
  });
});
