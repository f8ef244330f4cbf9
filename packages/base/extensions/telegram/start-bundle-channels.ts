import {
  type AgentNotification,
  type AgentResource,
  type Bundle,
  type ExtensionResource,
  GoondanError,
  type JsonObject,
  parseRefEntry,
  resolveValueSource,
} from '@goondan/core';
import type { TelegramPoller } from '../../connectors/runtime/telegram-pollers.ts';
import type { Channel, ChannelLogger, ChannelOrchestrator } from './channel-types.ts';
import { parseTelegramConfig, type TelegramConfig } from './parse-telegram-config.ts';
import { chatOfInstanceKey, startTelegramChannel } from './start-telegram-channel.ts';

/** The Extension an Agent lists to be answered on Telegram. */
export const TELEGRAM_EXTENSION = 'telegram';

/** A channel the bundle declares: an Agent that lists Extension/telegram, with its merged, checked config. */
export interface DeclaredChannel {
  kind: 'telegram';
  agent: string;
  config: TelegramConfig;
}

/**
 * Every Telegram channel the bundle declares (`agents` narrows it, e.g. to a Swarm's members). Throws
 * E_CHANNEL_CONFIG_INVALID for a bad config, or two Agents given the same bot token (Telegram lets one poller
 * per token).
 */
export function declaredChannels(
  bundle: Bundle,
  options: { agents?: readonly string[]; env?: Record<string, string | undefined> } = {},
): DeclaredChannel[] {
  const extension = bundle.resources.get(`Extension/${TELEGRAM_EXTENSION}`) as ExtensionResource | undefined;
  if (!extension) return [];
  const found: DeclaredChannel[] = [];
  for (const resource of bundle.resources.values()) {
    if (resource.kind !== 'Agent') continue;
    const agent = resource as AgentResource;
    const name = agent.metadata.name;
    if (options.agents && !options.agents.includes(name)) continue;
    for (const entry of agent.spec.extensions ?? []) {
      const parsed = parseRefEntry(entry);
      if (parsed?.ref.kind !== 'Extension' || parsed.ref.name !== TELEGRAM_EXTENSION) continue;
      const config: JsonObject = { ...(extension.spec.config ?? {}), ...(parsed.config ?? {}) };
      found.push({ kind: 'telegram', agent: name, config: parseTelegramConfig(config, name) });
    }
  }
  const byToken = new Map<string, string>();
  for (const channel of found) {
    const token = resolveValueSource(channel.config.token, options.env);
    const other = byToken.get(token);
    if (other) {
      throw new GoondanError(
        'E_CHANNEL_CONFIG_INVALID',
        `Agents '${other}' and '${channel.agent}' are given the same Telegram bot token; each bot answers one Agent.`,
      );
    }
    byToken.set(token, channel.agent);
  }
  return found;
}

/** The channels of a bundle, running: the host passes every notification and stops them all at once. */
export interface BundleChannels {
  channels: readonly Channel[];
  /** The bots they poll: a Connection may not poll one of them too (checkTelegramPollers). */
  pollers: readonly TelegramPoller[];
  notify(notification: AgentNotification): void;
  stop(): Promise<void>;
}

/**
 * Starts every channel the bundle declares (declaredChannels). Rejects, with none left running, when one cannot
 * start (E_CHANNEL_AUTH for a refused token, E_CHANNEL_CONFIG_INVALID, E_VALUE_SOURCE_ENV for an unset token).
 * A notification goes to the channel whose Agent raised it, or else to the one that serves its chat (an approval
 * of an agent called by the chat's agent shows in that chat).
 */
export async function startBundleChannels(options: {
  bundle: Bundle;
  orchestrator: ChannelOrchestrator;
  logger: ChannelLogger;
  agents?: readonly string[];
  signal?: AbortSignal;
  env?: Record<string, string | undefined>;
}): Promise<BundleChannels> {
  const declared = declaredChannels(options.bundle, options);
  const channels: Channel[] = [];
  try {
    for (const { agent, config } of declared) {
      channels.push(await startTelegramChannel({ ...options, agent, config }));
    }
  } catch (thrown) {
    await Promise.all(channels.map((channel) => channel.stop()));
    throw thrown;
  }
  return {
    channels,
    pollers: declared.map(({ agent, config }) => ({
      owner: `Agent '${agent}' (Extension/telegram)`,
      token: resolveValueSource(config.token, options.env),
    })),
    notify(notification) {
      const chatId = chatOfInstanceKey(notification.instanceKey);
      if (chatId === null) return;
      const serving = channels.filter((channel) => channel.allowedChatIds.includes(chatId));
      const channel = serving.find((candidate) => candidate.agent === notification.agent) ?? serving[0];
      channel?.notify(notification);
    },
    stop: async () => {
      await Promise.all(channels.map((channel) => channel.stop()));
    },
  };
}
