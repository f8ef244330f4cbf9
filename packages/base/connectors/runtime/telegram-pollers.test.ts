import { describe, expect, test } from 'bun:test';
import { resolve } from 'node:path';
import type { ConnectorResource } from '@goondan/core';
import { checkTelegramPollers, isTelegramConnector } from './telegram-pollers.ts';

const connector = (baseDir: string, entry: string) =>
  ({ kind: 'Connector', metadata: { name: 'telegram' }, spec: { entry }, location: { baseDir } }) as ConnectorResource;

describe('Telegram pollers', () => {
  test('two pollers on one token (an Extension channel and a Connection) are E_CHANNEL_CONFIG_INVALID naming both', () => {
    const pollers = [
      { owner: "Agent 'helper' (Extension/telegram)", token: '1:a' },
      { owner: "Connection 'tg'", token: '1:a' },
    ];
    expect(() => checkTelegramPollers(pollers)).toThrow(
      expect.objectContaining({
        code: 'E_CHANNEL_CONFIG_INVALID',
        message:
          "Agent 'helper' (Extension/telegram) and Connection 'tg' are given the same Telegram bot token; Telegram lets one poller per token.",
      }),
    );
    expect(() => checkTelegramPollers([pollers[0]!, { owner: "Connection 'tg'", token: '2:b' }])).not.toThrow();
  });

  test("the base Telegram connector is known by its module, not by the resource's name", () => {
    const base = resolve(import.meta.dir, '../..');
    expect(isTelegramConnector(connector(base, './connectors/telegram/index.ts'))).toBe(true);
    expect(isTelegramConnector(connector(import.meta.dir, './telegram.ts'))).toBe(false);
  });
});
