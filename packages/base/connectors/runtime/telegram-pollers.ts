import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ConnectorResource } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

const telegramEntry = real(resolve(import.meta.dir, '../telegram/index.ts'));

/** True for @goondan/base's Connector/telegram: its module decides, whatever a package names the resource. */
export function isTelegramConnector(connector: ConnectorResource): boolean {
  return real(resolve(connector.location.baseDir, connector.spec.entry)) === telegramEntry;
}

/** Something that long-polls a Telegram bot: an Agent's Extension/telegram channel, or a Connection. */
export interface TelegramPoller {
  /** As a person reads it: `Agent 'a' (Extension/telegram)`, `Connection 'c'`. */
  owner: string;
  token: string;
}

/**
 * Telegram lets one getUpdates poller per bot token (a second gets 409 Conflict and neither works reliably), so two
 * pollers given one token stop `gdn serve` before either starts (docs/connectors.md#one-poller-per-token).
 * Throws E_CHANNEL_CONFIG_INVALID naming both.
 */
export function checkTelegramPollers(pollers: readonly TelegramPoller[]): void {
  const owners = new Map<string, string>();
  for (const { owner, token } of pollers) {
    const other = owners.get(token);
    if (other !== undefined) {
      throw new GoondanError(
        'E_CHANNEL_CONFIG_INVALID',
        `${other} and ${owner} are given the same Telegram bot token; Telegram lets one poller per token.`,
        {
          suggestion:
            'Answer the bot in one place: remove Extension/telegram from the Agent or remove the Connection (or give each its own bot).',
        },
      );
    }
    owners.set(token, owner);
  }
}
