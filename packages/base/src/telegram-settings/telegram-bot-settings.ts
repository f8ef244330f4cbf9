import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GoondanError, openSealed, rememberSecretValue, resolveOAuthKey, seal } from '@goondan/core';

/**
 * What the assistant's Telegram tools stored for a bundle (docs/assistant-pack-2.md#telegram): whether the bot should
 * run, and its token. `null` means never set: the channel's own config decides. The Telegram channel of `gdn serve`
 * reads this so the tools and the channel share one bot (readTelegramBotSettings).
 */
export interface TelegramBotSettings {
  enabled: boolean | null;
  /** The bot token, opened; null when none was stored. Remembered as a known secret when read. */
  token: string | null;
  updatedAt: string | null;
}

interface StoredFile {
  version: 1;
  enabled: boolean | null;
  /** Sealed with the OAuth key (AES-256-GCM, identity IDENTITY). */
  token: string | null;
  updatedAt: string;
}

const IDENTITY = 'telegram:bot-token';

/** `<bundle>/.goondan/telegram-bot.json` (mode 0600; the token in it is sealed). */
export function telegramBotSettingsPath(rootDir: string): string {
  return join(rootDir, '.goondan', 'telegram-bot.json');
}

function readStored(rootDir: string): StoredFile | null {
  let text: string;
  try {
    text = readFileSync(telegramBotSettingsPath(rootDir), 'utf8');
  } catch (thrown) {
    if ((thrown as { code?: string }).code === 'ENOENT') return null;
    throw thrown;
  }
  try {
    const parsed = JSON.parse(text) as StoredFile;
    if (parsed.version !== 1) throw new Error(`version ${parsed.version}`);
    return parsed;
  } catch (cause) {
    throw new GoondanError('E_STORE_CORRUPT', `${telegramBotSettingsPath(rootDir)} cannot be read.`, {
      cause,
      suggestion: 'Delete the file and set the token again (telegram__set_token).',
    });
  }
}

/** The stored settings of the bundle at `rootDir`; the token opened with the OAuth key (docs/oauth.md#the-key). */
export function readTelegramBotSettings(
  rootDir: string,
  env: Record<string, string | undefined> = process.env,
): TelegramBotSettings {
  const stored = readStored(rootDir);
  if (!stored) return { enabled: null, token: null, updatedAt: null };
  const token = stored.token
    ? openSealed({ key: resolveOAuthKey(env), identity: IDENTITY, sealed: stored.token })
    : null;
  if (token) rememberSecretValue(token);
  return { enabled: stored.enabled, token, updatedAt: stored.updatedAt };
}

/** Changes the stored settings (a field left out is kept); written whole to a new file and renamed over the old. */
export function writeTelegramBotSettings(
  rootDir: string,
  change: { enabled?: boolean; token?: string | null },
  env: Record<string, string | undefined> = process.env,
): void {
  const before = readStored(rootDir);
  let token = before?.token ?? null;
  if (change.token !== undefined) {
    token =
      change.token === null ? null : seal({ key: resolveOAuthKey(env), identity: IDENTITY, plaintext: change.token });
  }
  const next: StoredFile = {
    version: 1,
    enabled: change.enabled ?? before?.enabled ?? null,
    token,
    updatedAt: new Date().toISOString(),
  };
  const path = telegramBotSettingsPath(rootDir);
  mkdirSync(join(rootDir, '.goondan'), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}
