import type { JsonValue, ValueSource } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';

/** Where grammY sends Bot API calls unless the config says otherwise. */
export const DEFAULT_API_ROOT = 'https://api.telegram.org';

/** The `telegram` extension's config, checked (the token is not resolved yet: only the host needs it). */
export interface TelegramConfig {
  token: ValueSource;
  /** Chats the bot talks to; an update from any other chat is refused (E_CHANNEL_CHAT_NOT_ALLOWED). */
  allowedChatIds: number[];
  apiRoot: string;
  /** Seconds one getUpdates long poll waits for an update. */
  pollTimeoutSeconds: number;
}

const keys = new Set(['token', 'allowedChatIds', 'apiRoot', 'pollTimeoutSeconds']);

function isObject(value: unknown): value is Record<string, JsonValue> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(agent: string, message: string): GoondanError {
  return new GoondanError('E_CHANNEL_CONFIG_INVALID', `Telegram channel of Agent '${agent}': ${message}`);
}

function valueSource(value: unknown, agent: string): ValueSource {
  if (isObject(value) && typeof value.value === 'string' && value.value !== '' && Object.keys(value).length === 1) {
    return { value: value.value };
  }
  const from = isObject(value) && isObject(value.valueFrom) ? value.valueFrom : null;
  if (from && typeof from.env === 'string' && from.env !== '' && Object.keys(value as object).length === 1) {
    return { valueFrom: { env: from.env } };
  }
  throw invalid(agent, 'config.token must be a ValueSource: { valueFrom: { env: NAME } } (or { value: ... })');
}

/**
 * Checks the config an Agent gives `Extension/telegram`. Every mistake throws E_CHANNEL_CONFIG_INVALID naming the
 * field, so neither the host nor the agent starts with a half-understood channel.
 */
export function parseTelegramConfig(config: Readonly<Record<string, JsonValue>>, agent: string): TelegramConfig {
  for (const key of Object.keys(config)) {
    if (!keys.has(key)) throw invalid(agent, `unknown key config.${key} (known: ${[...keys].join(', ')})`);
  }
  const chats = config.allowedChatIds ?? [];
  if (!Array.isArray(chats) || !chats.every((id) => typeof id === 'number' && Number.isSafeInteger(id))) {
    throw invalid(agent, 'config.allowedChatIds must be a list of chat ids (integers; groups are negative)');
  }
  const apiRoot = config.apiRoot ?? DEFAULT_API_ROOT;
  if (typeof apiRoot !== 'string' || !/^https?:\/\/[^/]/.test(apiRoot)) {
    throw invalid(agent, `config.apiRoot must be an http(s) URL (got ${JSON.stringify(apiRoot)})`);
  }
  const poll = config.pollTimeoutSeconds ?? 30;
  if (typeof poll !== 'number' || !Number.isInteger(poll) || poll < 0 || poll > 50) {
    throw invalid(agent, `config.pollTimeoutSeconds must be an integer from 0 to 50 (got ${JSON.stringify(poll)})`);
  }
  return {
    token: valueSource(config.token, agent),
    allowedChatIds: chats as number[],
    apiRoot: apiRoot.replace(/\/+$/, ''),
    pollTimeoutSeconds: poll,
  };
}
