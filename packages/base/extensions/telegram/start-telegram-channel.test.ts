import { afterEach, describe, expect, test } from 'bun:test';
import { GoondanError } from '@goondan/core';
import { startTelegramChannel } from './start-telegram-channel.ts';

const TOKEN = '123456:very-secret-token';
const servers: { stop(force?: boolean): unknown }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.stop(true);
});

/** A Bot API stand-in answering every call with `answer` (given the request path, which holds the token). */
function api(answer: (path: string) => Response | Promise<Response>): string {
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: (request) => answer(new URL(request.url).pathname),
  });
  servers.push(server);
  return `http://127.0.0.1:${server.port}`;
}

async function startError(apiRoot: string, getMeTimeoutMs?: number): Promise<GoondanError> {
  const lines: string[] = [];
  const log = (line: string) => lines.push(line);
  const thrown = await startTelegramChannel({
    agent: 'assistant',
    config: { token: { value: TOKEN }, allowedChatIds: [1], apiRoot },
    orchestrator: { request: () => Promise.reject(new Error('unused')), answerApproval: () => false },
    logger: { info: log, warn: log, error: log },
    getMeTimeoutMs,
  }).then(
    () => null,
    (error: unknown) => error,
  );
  expect(thrown).toBeInstanceOf(GoondanError);
  expect(lines.join('\n')).not.toContain(TOKEN);
  return thrown as GoondanError;
}

describe('startTelegramChannel against a hostile Bot API', () => {
  test('an API echoing the request path in its error never shows the bot token', async () => {
    const root = api((path) =>
      Response.json({ ok: false, error_code: 400, description: `bad: ${path}` }, { status: 400 }),
    );
    const error = await startError(root);
    expect(error.code).toBe('E_CHANNEL_API');
    expect(error.message).toContain('/bot<bot token>/getMe');
    expect(error.message).not.toContain('very-secret-token');
  });

  test('a 401 whose description echoes the token is E_CHANNEL_AUTH without the token', async () => {
    const root = api(() => Response.json({ ok: false, error_code: 401, description: `token ${TOKEN} revoked` }));
    const error = await startError(root);
    expect(error.code).toBe('E_CHANNEL_AUTH');
    expect(error.message).not.toContain(TOKEN);
  });

  test('an API that never answers getMe ends the start with E_CHANNEL_API instead of hanging', async () => {
    const root = api(() => new Promise<Response>(() => {}));
    const started = Date.now();
    const error = await startError(root, 300);
    expect(error.code).toBe('E_CHANNEL_API');
    expect(error.message).toContain('no answer within 0.3s');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  test('an HTML error page is E_CHANNEL_API naming what came back', async () => {
    const root = api(() => new Response('<html>502 Bad Gateway</html>', { status: 502 }));
    const error = await startError(root);
    expect(error.code).toBe('E_CHANNEL_API');
    expect(error.message).toContain('getMe');
  });
});
