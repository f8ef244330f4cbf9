import { describe, expect, test } from 'bun:test';
import { DEFAULT_API_ROOT, parseTelegramConfig } from './parse-telegram-config.ts';

const token = { valueFrom: { env: 'TELEGRAM_BOT_TOKEN' } };

function codeAndMessage(config: Record<string, unknown>): string {
  try {
    parseTelegramConfig(config as never, 'assistant');
    return 'parsed';
  } catch (thrown) {
    const error = thrown as { code?: string; message: string };
    return `${error.code} ${error.message}`;
  }
}

describe('parseTelegramConfig', () => {
  test('fills in the defaults', () => {
    expect(parseTelegramConfig({ token, allowedChatIds: [42, -1001] }, 'assistant')).toEqual({
      token,
      allowedChatIds: [42, -1001],
      apiRoot: DEFAULT_API_ROOT,
      pollTimeoutSeconds: 30,
    });
  });

  test.each([
    [{ allowedChatIds: [1] }, 'config.token must be a ValueSource'],
    [{ token: 'plain-string', allowedChatIds: [1] }, 'config.token must be a ValueSource'],
    [{ token, allowedChatIds: ['42'] }, 'config.allowedChatIds must be a list of chat ids'],
    [{ token, allowedChatIds: 42 }, 'config.allowedChatIds must be a list of chat ids'],
    [{ token, apiRoot: 'ftp://x' }, 'config.apiRoot must be an http(s) URL'],
    [{ token, pollTimeoutSeconds: 90 }, 'config.pollTimeoutSeconds must be an integer from 0 to 50'],
    [{ token, allowedChats: [1] }, 'unknown key config.allowedChats'],
  ])('refuses %j with E_CHANNEL_CONFIG_INVALID naming the field', (config, expected) => {
    const result = codeAndMessage(config);
    expect(result).toStartWith("E_CHANNEL_CONFIG_INVALID Telegram channel of Agent 'assistant': ");
    expect(result).toContain(expected);
  });
});
