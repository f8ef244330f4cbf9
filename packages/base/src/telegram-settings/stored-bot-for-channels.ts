import { type AgentResource, type Bundle, type ExtensionResource, type JsonValue, parseRefEntry } from '@goondan/core';
import { readTelegramBotSettings } from './telegram-bot-settings.ts';

/** How the settings the assistant's Telegram tools stored change the bot `gdn serve` starts. */
export interface StoredBotForChannels {
  /** False when telegram__enable turned the bot off: start no Telegram channel. */
  start: boolean;
  /** The environment to resolve channel tokens in: the stored token stands in for the variable the config names. */
  env: Record<string, string | undefined>;
  /** What was applied or could not be, for the host's log (never the token). */
  note?: string;
}

/** The variables the `token` ValueSources of the bundle's Telegram channels name (`valueFrom.env`). */
function tokenVariables(bundle: Bundle, agents: readonly string[] | undefined): Set<string> {
  const names = new Set<string>();
  const extension = bundle.resources.get('Extension/telegram') as ExtensionResource | undefined;
  if (!extension) return names;
  for (const resource of bundle.resources.values()) {
    if (resource.kind !== 'Agent' || (agents && !agents.includes(resource.metadata.name))) continue;
    for (const entry of (resource as AgentResource).spec.extensions ?? []) {
      const parsed = parseRefEntry(entry);
      if (parsed?.ref.kind !== 'Extension' || parsed.ref.name !== 'telegram') continue;
      const token = (parsed.config?.token ?? extension.spec.config?.token) as Record<string, JsonValue> | undefined;
      const from = token?.valueFrom as Record<string, JsonValue> | undefined;
      names.add(typeof from?.env === 'string' ? from.env : '(inline)');
    }
  }
  return names;
}

/**
 * Applies what `telegram__enable` and `telegram__set_token` stored (docs/assistant-pack-2.md#telegram) to the
 * Telegram channels of a bundle: `enabled: false` starts none; a stored token is used by the channel when exactly
 * one bot is declared and its config reads the token from a variable (it takes that variable's place).
 */
export function storedBotForChannels(
  bundle: Bundle,
  options: { agents?: readonly string[]; env?: Record<string, string | undefined> } = {},
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
      note: 'telegram: the bot is turned off (telegram__enable); no Telegram channel started',
    };
  }
  if (!stored.token) return { start: true, env };
  const variables = [...tokenVariables(bundle, options.agents)];
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
