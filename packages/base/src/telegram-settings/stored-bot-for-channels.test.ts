import { afterAll, describe, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Bundle } from '@goondan/core';
import { storedBotForChannels } from './stored-bot-for-channels.ts';
import { telegramBotSettingsPath, writeTelegramBotSettings } from './telegram-bot-settings.ts';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});
const env = { GOONDAN_OAUTH_KEY: randomBytes(32).toString('base64'), PATH: '/usr/bin' };
const TOKEN = `123456789:${'x'.repeat(35)}`;

/** A loaded bundle, reduced to what the function reads: Agents listing Extension/telegram with their token config. */
function bundleWith(tokens: unknown[]): Bundle {
  const rootDir = mkdtempSync(join(tmpdir(), 'stored-bot-'));
  roots.push(rootDir);
  const resources = new Map<string, unknown>([
    ['Extension/telegram', { kind: 'Extension', metadata: { name: 'telegram' }, spec: { config: {} } }],
  ]);
  tokens.forEach((token, index) => {
    resources.set(`Agent/a${index}`, {
      kind: 'Agent',
      metadata: { name: `a${index}` },
      spec: { extensions: [{ ref: 'Extension/telegram', config: { token, allowedChatIds: [] } }] },
    });
  });
  return { rootDir, resources } as unknown as Bundle;
}

describe('storedBotForChannels', () => {
  test('nothing stored: the channels start from their config, the environment untouched', () => {
    const result = storedBotForChannels(bundleWith([{ valueFrom: { env: 'TELEGRAM_BOT_TOKEN' } }]), { env });
    expect(result).toEqual({ start: true, env });
  });

  test('a stored token takes the place of the variable the one channel names; turned off starts none', () => {
    const bundle = bundleWith([{ valueFrom: { env: 'MY_BOT' } }]);
    writeTelegramBotSettings(bundle.rootDir, { token: TOKEN }, env);
    const used = storedBotForChannels(bundle, { env });
    expect(used.start).toBe(true);
    expect(used.env.MY_BOT).toBe(TOKEN);
    expect(used.note).not.toContain(TOKEN);
    writeTelegramBotSettings(bundle.rootDir, { enabled: false }, env);
    expect(storedBotForChannels(bundle, { env })).toMatchObject({ start: false });
  });

  test('several bots, an inline token or an unreadable file leave the config in charge, with a note', () => {
    const several = bundleWith([{ valueFrom: { env: 'BOT_A' } }, { valueFrom: { env: 'BOT_B' } }]);
    writeTelegramBotSettings(several.rootDir, { token: TOKEN }, env);
    const result = storedBotForChannels(several, { env });
    expect(result.env).toBe(env);
    expect(result.note).toContain('not used');
    const inline = bundleWith([{ value: 'inline-token' }]);
    writeTelegramBotSettings(inline.rootDir, { token: TOKEN }, env);
    expect(storedBotForChannels(inline, { env }).env).toBe(env);
    const damaged = bundleWith([{ valueFrom: { env: 'MY_BOT' } }]);
    writeTelegramBotSettings(damaged.rootDir, { token: TOKEN }, env);
    const otherKey = { ...env, GOONDAN_OAUTH_KEY: randomBytes(32).toString('base64') };
    expect(storedBotForChannels(damaged, { env: otherKey })).toMatchObject({ start: true, env: otherKey });
    writeFileSync(telegramBotSettingsPath(damaged.rootDir), '{ not json');
    expect(storedBotForChannels(damaged, { env }).note).toContain('E_STORE_CORRUPT');
  });
});

describe('storedBotForChannels with a Connection to Connector/telegram', () => {
  const withConnection = (token: unknown) => {
    const bundle = bundleWith([]);
    const resources = bundle.resources as Map<string, unknown>;
    resources.delete('Extension/telegram');
    resources.set('Connector/telegram', {
      kind: 'Connector',
      metadata: { name: 'telegram' },
      spec: { entry: './connectors/telegram/index.ts' },
      location: { baseDir: resolve(import.meta.dir, '../..') },
    });
    resources.set('Connection/tg', {
      kind: 'Connection',
      metadata: { name: 'tg' },
      spec: { connectorRef: 'Connector/telegram', secrets: { TELEGRAM_BOT_TOKEN: token } },
    });
    return bundle;
  };

  test('the stored token takes the place of the variable its TELEGRAM_BOT_TOKEN secret names; off starts none', () => {
    const bundle = withConnection({ valueFrom: { env: 'DESK_BOT' } });
    writeTelegramBotSettings(bundle.rootDir, { token: TOKEN }, env);
    const used = storedBotForChannels(bundle, { env });
    expect(used).toMatchObject({ start: true, note: 'telegram: using the token stored with telegram__set_token' });
    expect(used.env.DESK_BOT).toBe(TOKEN);
    writeTelegramBotSettings(bundle.rootDir, { enabled: false }, env);
    expect(storedBotForChannels(bundle, { env })).toMatchObject({ start: false });
  });
});
