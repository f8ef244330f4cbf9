import {
  type AgentResource,
  type Bundle,
  type ConnectionResource,
  type ConnectorResource,
  type ExtensionResource,
  type JsonValue,
  parseObjectRef,
  parseRefEntry,
} from '@goondan/core';
import { isTelegramConnector } from '../../connectors/runtime/telegram-pollers.ts';
import { readTelegramBotSettings } from './telegram-bot-settings.ts';

/** How the settings the assistant's Telegram tools stored change the bot `gdn serve` starts. */
export interface StoredBotForChannels {
  /** False when telegram__enable turned the bot off: start no Telegram channel nor Telegram Connection. */
  start: boolean;
  /** The environment to resolve channel tokens in: the stored token stands in for the variable the config names. */
  env: Record<string, string | undefined>;
  /** What was applied or could not be, for the host's log (never the token). */
  note?: string;
}

/** The variable a token ValueSource names (`valueFrom.env`), or `(inline)`. */
function variableOf(token: unknown): string {
  const from = (token as Record<string, JsonValue> | undefined)?.valueFrom as Record<string, JsonValue> | undefined;
  return typeof from?.env === 'string' ? from.env : '(inline)';
}

/**
 * The variables the bot tokens of the bundle's Telegram channels name: each Extension/telegram `token`, and the
 * `TELEGRAM_BOT_TOKEN` secret of each Connection to @goondan/base's Telegram connector.
 */
function tokenVariables(
  bundle: Bundle,
  agents: readonly string[] | undefined,
  connections: readonly ConnectionResource[],
): Set<string> {
  const names = new Set<string>();
  for (const connection of connections) {
    const ref = parseObjectRef(connection.spec.connectorRef);
    const connector = ref
      ? (bundle.resources.get(`Connector/${ref.name}`) as ConnectorResource | undefined)
      : undefined;
    if (connector && isTelegramConnector(connector)) names.add(variableOf(connection.spec.secrets?.TELEGRAM_BOT_TOKEN));
  }
  const extension = bundle.resources.get('Extension/telegram') as ExtensionResource | undefined;
  if (!extension) return names;
  for (const resource of bundle.resources.values()) {
    if (resource.kind !== 'Agent' || (agents && !agents.includes(resource.metadata.name))) continue;
    for (const entry of (resource as AgentResource).spec.extensions ?? []) {
      const parsed = parseRefEntry(entry);
      if (parsed?.ref.kind !== 'Extension' || parsed.ref.name !== 'telegram') continue;
      names.add(variableOf(parsed.config?.token ?? extension.spec.config?.token));
    }
  }
  return names;
}

/**
 * Applies what `telegram__enable` and `telegram__set_token` stored (docs/assistant-pack-2.md#telegram) to the
 * Telegram channels of a bundle, Extension/telegram and Connections to Connector/telegram alike: `enabled: false`
 * starts none; a stored token is used when exactly one bot is declared and its config (or the Connection's
 * TELEGRAM_BOT_TOKEN secret) reads the token from a variable: it takes that variable's place.
 */
export function storedBotForChannels(
  bundle: Bundle,
  options: {
    agents?: readonly string[];
    /** The Connections of the served Swarm (connectionsOf); default: every Connection of the bundle. */
    connections?: readonly ConnectionResource[];
    env?: Record<string, string | undefined>;
  } = {},
): StoredBotForChannels {
  const env = options.env ?? process.env;
  let stored: ReturnType<typeof readTelegramBotSettings>;
  try {
    stored = readTelegramBotSettings(bundle.rootDir, env);
  } catch (thrown) {
    // A settings file that does not open (another key, damaged) must not stop the host: the config decides.
    const code = (thrown as { code?: string }).code ?? 'E_STORE_CORRUPT';
    return { start: true, env, note: `telegram: the stored bot settings were not read (${code}); using the config` };
  }
  if (stored.enabled === false) {
    return {
      start: false,
      env,
      note: 'telegram: the bot is turned off (telegram__enable); no Telegram channel or Connection started',
    };
  }
  if (!stored.token) return { start: true, env };
  const connections =
    options.connections ??
    [...bundle.resources.values()].filter((resource): resource is ConnectionResource => resource.kind === 'Connection');
  const variables = [...tokenVariables(bundle, options.agents, connections)];
  if (variables.length === 0) return { start: true, env };
  const [variable] = variables;
  if (variables.length > 1 || !variable || variable === '(inline)') {
    return {
      start: true,
      env,
      note: 'telegram: the token stored with telegram__set_token is not used (several bots, or a token written inline)',
    };
  }
  return {
    start: true,
    env: { ...env, [variable]: stored.token },
    note: 'telegram: using the token stored with telegram__set_token',
  };
}
