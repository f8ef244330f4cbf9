import type { ExtensionApi } from '@goondan/core';
import { parseTelegramConfig } from './parse-telegram-config.ts';

/**
 * The `telegram` Extension as an agent process loads it. The channel itself (polling Telegram, sending replies)
 * runs in the host (`gdn serve`), which reads the same config; here it is only checked, so a bad config also
 * stops the agent with a clear error instead of being ignored.
 */
export function register(api: ExtensionApi): void {
  parseTelegramConfig(api.config, api.agentName);
}
