import { resolve } from 'node:path';
import {
  checkNamePart,
  closestName,
  DEFAULT_RISK_CATEGORY,
  DEFAULT_TOOL_TIMEOUT_MS,
  GoondanError,
  type JsonValue,
  type RiskCategory,
  resolveValueSource,
  riskCategories,
} from '@goondan/core';

/** One MCP server of the extension's config, checked and with defaults applied. */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

interface McpServerCommon {
  /** The resource part of every tool name of this server (`{name}__{tool}`). */
  name: string;
  /** Per call: the registered tool's timeout, and the MCP request timeout (the server is told to cancel). */
  timeoutMs: number;
  /** For connecting (initialize) and each tools/list page. */
  connectTimeoutMs: number;
  /** When true, the agent does not start unless this server connects. */
  required: boolean;
  /** Risk category of the server's tools (permissions); `sensitive` unless the bundle says otherwise. */
  category: RiskCategory;
  /**
   * Per tool, by the name the server gives it: overrides `category`. A Map, not an object: tools may be named
   * `toString` or `__proto__`, and an object's lookup would find its prototype's members.
   */
  toolCategories: ReadonlyMap<string, RiskCategory>;
}

export interface McpStdioServerConfig extends McpServerCommon {
  transport: 'stdio';
  command: string;
  args: string[];
  /** Given over the scrubbed environment of the agent process. */
  env: Record<string, string>;
  /** Absolute; a relative `cwd` was resolved against the current directory of the agent process. */
  cwd: string;
}

export interface McpHttpServerConfig extends McpServerCommon {
  transport: 'http';
  url: string;
  headers: Record<string, string>;
  /** `OAuthApp/name`: requests carry a bearer token of that app's global grant (docs/oauth.md#mcp-servers). */
  oauthAppRef?: string;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const MAX_TIMEOUT_MS = 3_600_000;
/** Long server names would leave too little of the 64 characters for the tool part. */
const MAX_SERVER_NAME_LENGTH = 32;

const commonKeys = ['name', 'timeoutMs', 'connectTimeoutMs', 'required', 'category', 'toolCategories'];
const stdioKeys = new Set([...commonKeys, 'command', 'args', 'env', 'cwd']);
const httpKeys = new Set([...commonKeys, 'url', 'headers', 'oauthAppRef']);
const anyServerKeys = new Set([...stdioKeys, ...httpKeys]);

function category(value: unknown, at: string): RiskCategory {
  if (typeof value === 'string' && (riskCategories as readonly string[]).includes(value)) return value as RiskCategory;
  throw new Error(`${at} must be one of ${riskCategories.join(', ')} (got ${JSON.stringify(value)})`);
}

function toolCategories(value: unknown, at: string): Map<string, RiskCategory> {
  if (value === undefined) return new Map();
  if (!isObject(value)) throw new Error(`${at} must map MCP tool names to a category`);
  // Own keys only (Object.entries), so a tool named like an Object.prototype member is looked up as itself.
  return new Map(Object.entries(value).map(([tool, given]) => [tool, category(given, `${at}.${tool}`)]));
}

function isObject(value: unknown): value is Record<string, JsonValue> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The servers of the `mcp` extension's config (`config.servers`). Every mistake throws an Error saying which field
 * is wrong; the extension loader turns it into E_EXTENSION_LOAD naming the extension, so a bad config stops the
 * agent from starting rather than silently dropping a server.
 */
export function parseMcpConfig(
  config: Readonly<Record<string, JsonValue>>,
  options: { cwd?: string; env?: Record<string, string | undefined> } = {},
): McpServerConfig[] {
  const servers = config.servers ?? [];
  if (!Array.isArray(servers)) throw new Error('config.servers must be a list of MCP servers');
  const seen = new Set<string>();
  return servers.map((entry, index) => {
    const at = `config.servers[${index}]`;
    if (!isObject(entry)) throw new Error(`${at} must be an object with name and command or url`);
    const name = entry.name;
    if (typeof name !== 'string') throw new Error(`${at}.name must be a string`);
    const nameProblem = checkNamePart(name);
    if (nameProblem) throw new Error(`${at}.name '${name}' ${nameProblem}`);
    if (name.length > MAX_SERVER_NAME_LENGTH)
      throw new Error(`${at}.name '${name}' is longer than ${MAX_SERVER_NAME_LENGTH} characters`);
    if (seen.has(name)) throw new Error(`${at}.name '${name}' is used by another server; names must be unique`);
    seen.add(name);
    const common: McpServerCommon = {
      name,
      timeoutMs: positiveInteger(entry.timeoutMs, `${at}.timeoutMs`, DEFAULT_TOOL_TIMEOUT_MS),
      connectTimeoutMs: positiveInteger(entry.connectTimeoutMs, `${at}.connectTimeoutMs`, DEFAULT_CONNECT_TIMEOUT_MS),
      required: optionalBoolean(entry.required, `${at}.required`),
      category: entry.category === undefined ? DEFAULT_RISK_CATEGORY : category(entry.category, `${at}.category`),
      toolCategories: toolCategories(entry.toolCategories, `${at}.toolCategories`),
    };
    // A misspelt field first (`comand`): said as such, not as a server with neither command nor url.
    rejectUnknownKeys(entry, anyServerKeys, at);
    const hasCommand = entry.command !== undefined;
    const hasUrl = entry.url !== undefined;
    if (hasCommand === hasUrl) throw new Error(`${at} ('${name}') needs exactly one of command (stdio) or url (HTTP)`);
    if (hasCommand) {
      rejectUnknownKeys(entry, stdioKeys, at);
      if (typeof entry.command !== 'string' || entry.command === '')
        throw new Error(`${at}.command must be a non-empty string`);
      const args = entry.args ?? [];
      if (!Array.isArray(args) || !args.every((arg) => typeof arg === 'string'))
        throw new Error(`${at}.args must be a list of strings`);
      if (entry.cwd !== undefined && typeof entry.cwd !== 'string') throw new Error(`${at}.cwd must be a string`);
      return {
        ...common,
        transport: 'stdio',
        command: entry.command,
        args: args as string[],
        env: stringMap(entry.env, `${at}.env`, options.env),
        cwd: resolve(options.cwd ?? process.cwd(), entry.cwd ?? '.'),
      };
    }
    rejectUnknownKeys(entry, httpKeys, at);
    if (typeof entry.url !== 'string') throw new Error(`${at}.url must be a string`);
    let url: URL;
    try {
      url = new URL(entry.url);
    } catch {
      throw new Error(`${at}.url '${entry.url}' is not an absolute URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new Error(`${at}.url must be http:// or https:// (got ${url.protocol})`);
    const { oauthAppRef } = entry;
    if (oauthAppRef !== undefined && (typeof oauthAppRef !== 'string' || !/^OAuthApp\/[^/]+$/.test(oauthAppRef)))
      throw new Error(`${at}.oauthAppRef must be 'OAuthApp/name' (got ${JSON.stringify(oauthAppRef)})`);
    return {
      ...common,
      transport: 'http',
      url: url.href,
      headers: stringMap(entry.headers, `${at}.headers`, options.env),
      ...(oauthAppRef ? { oauthAppRef } : {}),
    };
  });
}

function rejectUnknownKeys(entry: Record<string, JsonValue>, allowed: Set<string>, at: string): void {
  for (const key of Object.keys(entry)) {
    if (allowed.has(key)) continue;
    const guess = closestName(key, allowed);
    const meant = guess ? `; did you mean '${guess}'?` : '';
    throw new Error(`${at} has unknown field '${key}'${meant} (allowed: ${[...allowed].join(', ')})`);
  }
}

function positiveInteger(value: JsonValue | undefined, at: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_TIMEOUT_MS)
    throw new Error(`${at} must be an integer from 1 to ${MAX_TIMEOUT_MS}`);
  return value;
}

function optionalBoolean(value: JsonValue | undefined, at: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw new Error(`${at} must be true or false`);
  return value;
}

/** `{ NAME: "text" }` or `{ NAME: { valueFrom: { env: VAR } } }` (a secret the scrubbed environment would drop). */
function stringMap(
  value: JsonValue | undefined,
  at: string,
  env: Record<string, string | undefined> | undefined,
): Record<string, string> {
  if (value === undefined) return {};
  if (!isObject(value)) throw new Error(`${at} must be a map of names to values`);
  const result: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item === 'string') result[key] = item;
    else if (typeof item === 'number' || typeof item === 'boolean') result[key] = String(item);
    else if (isObject(item) && (typeof item.value === 'string' || isObject(item.valueFrom))) {
      try {
        result[key] = resolveValueSource(item as never, env);
      } catch (thrown) {
        if (!(thrown instanceof GoondanError)) throw thrown;
        // The field after the message: `headers.Authorization: …` would read as a credential and be masked whole.
        const message = `${thrown.message.replace(/\.$/, '')} (for ${at}.${key})`;
        throw new GoondanError(thrown.code, message, { suggestion: thrown.suggestion });
      }
    } else {
      throw new Error(`${at}.${key} must be a string, { value } or { valueFrom: { env: NAME } }`);
    }
  }
  return result;
}
