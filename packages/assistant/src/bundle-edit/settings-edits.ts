import { checkNamePart, GoondanError, type JsonValue, type ToolContext } from '@goondan/core';
import { type Document, isMap, isSeq, type YAMLMap, type YAMLSeq } from 'yaml';
import { activeDocuments } from './active-documents.ts';
import { agentDocument, label } from './agent-documents.ts';
import { editBundle } from './edit-bundle.ts';

/** A setting is a label of the calling Agent under this prefix (values are strings, as the catalogue says). */
export const SETTING_PREFIX = 'settings.assistant.goondan.ai/';
const keyPattern = /^[A-Za-z][A-Za-z0-9_.-]{0,62}$/;

/** The shape of a key; secrets are refused by the tool before this runs (tools/settings/refuse-secrets.ts). */
function checkKey(key: string): string {
  if (!keyPattern.test(key))
    throw new GoondanError('E_TOOL_INVALID_ARGS', `'${key}' is not a setting key.`, {
      suggestion: 'Use a key of letters, digits, "_", "-" or "." starting with a letter (e.g. wakeWord, ttsSpeed).',
    });
  if (key === 'activeAgentName')
    throw new GoondanError('E_TOOL_INVALID_ARGS', 'The active agent is the Swarm entry, not a setting.', {
      suggestion: 'Use agent__set_active { name } (agent__list shows which one is active).',
    });
  return key;
}

function settingsOf(agent: Document): Record<string, string> {
  const labels = agent.getIn(['metadata', 'labels']);
  const result: Record<string, string> = {};
  if (!isMap(labels)) return result;
  for (const item of (labels as YAMLMap).items) {
    const key = String((item.key as { value?: unknown })?.value ?? item.key);
    if (key.startsWith(SETTING_PREFIX)) result[key.slice(SETTING_PREFIX.length)] = label(agent, key) ?? '';
  }
  return result;
}

/** The `config` map of the Agent's Extension/mcp entry, created (with `servers: []`) when `create`. */
function mcpConfig(agent: Document, create: boolean): YAMLMap | null {
  let extensions = agent.getIn(['spec', 'extensions'], true);
  if (!isSeq(extensions)) {
    if (!create) return null;
    agent.setIn(['spec', 'extensions'], agent.createNode([]));
    extensions = agent.getIn(['spec', 'extensions'], true);
  }
  const seq = extensions as YAMLSeq;
  let entry = seq.items.find((item) => isMap(item) && item.get('ref') === 'Extension/mcp') as YAMLMap | undefined;
  if (!entry) {
    if (!create) return null;
    entry = agent.createNode({ ref: 'Extension/mcp', config: { servers: [] } }) as YAMLMap;
    seq.items.push(entry);
  }
  if (!isMap(entry.get('config', true))) entry.set('config', agent.createNode({ servers: [] }));
  return entry.get('config', true) as unknown as YAMLMap;
}

interface ServerInput {
  id?: string;
  name?: string;
  command?: string;
  arguments?: string[];
  /** Text, or `{ valueFrom: { env: NAME } }` (docs/mcp.md#server-fields): secrets only in the second form. */
  environment?: Record<string, string | { valueFrom: { env: string } }>;
  is_enabled?: boolean;
}

function listOf(agent: Document, config: YAMLMap, list: 'servers' | 'disabledServers'): YAMLSeq {
  if (!isSeq(config.get(list, true))) config.set(list, agent.createNode([]));
  return config.get(list, true) as unknown as YAMLSeq;
}

function findServer(config: YAMLMap | null, id: string): { list: 'servers' | 'disabledServers'; index: number } {
  for (const list of ['servers', 'disabledServers'] as const) {
    const seq = config?.get(list, true);
    if (!isSeq(seq)) continue;
    const index = seq.items.findIndex((item) => isMap(item) && item.get('name') === id);
    if (index >= 0) return { list, index };
  }
  throw new GoondanError('E_REF_UNRESOLVED', `No MCP server '${id}' in this agent's Extension/mcp config.`, {
    suggestion: 'The id of a server is its name: settings__list shows them under mcpServers.',
  });
}

function checkServerName(name: string): string {
  const problem = checkNamePart(name) ?? (name.length > 32 ? 'is longer than 32 characters' : null);
  if (problem)
    throw new GoondanError('E_TOOL_INVALID_ARGS', `MCP server name '${name}' ${problem}.`, {
      suggestion: 'Use lowercase letters, digits, "_" and "-" (no "__"), at most 32 characters, e.g. "files".',
    });
  return name;
}

function serverNode(agent: Document, input: ServerInput, previous?: Record<string, JsonValue>) {
  const entry: Record<string, JsonValue> = { ...(previous ?? {}) };
  if (input.name !== undefined) entry.name = checkServerName(input.name);
  if (input.command !== undefined) {
    if (input.command.trim() === '')
      throw new GoondanError('E_TOOL_INVALID_ARGS', 'command must not be empty.', {
        suggestion: 'Give the program that starts the MCP server, e.g. "npx".',
      });
    entry.command = input.command;
    delete entry.url;
    delete entry.headers;
    delete entry.oauthAppRef;
  }
  if (input.arguments !== undefined) entry.args = input.arguments;
  if (input.environment !== undefined) entry.env = input.environment;
  return agent.createNode(entry);
}

function serversSummary(agent: Document): JsonValue[] {
  const config = mcpConfig(agent, false);
  return (['servers', 'disabledServers'] as const).flatMap((list) => {
    const seq = config?.get(list, true);
    if (!isSeq(seq)) return [];
    return seq.items.map((item) => {
      const value = (isMap(item) ? item.toJSON() : {}) as Record<string, JsonValue>;
      return {
        id: value.name ?? null,
        name: value.name ?? null,
        command: value.command ?? null,
        url: value.url ?? null,
        arguments: value.args ?? [],
        environment: Object.keys((value.env as Record<string, JsonValue>) ?? {}),
        is_enabled: list === 'servers',
      };
    });
  });
}

export const settingsEdits = {
  async get(ctx: ToolContext, input: { key: string }) {
    const agent = agentDocument(await activeDocuments(ctx), ctx.agentName);
    const key = checkKey(input.key);
    const value = settingsOf(agent)[key];
    return { agent: ctx.agentName, key, value: value ?? null, set: value !== undefined };
  },
  async list(ctx: ToolContext) {
    const agent = agentDocument(await activeDocuments(ctx), ctx.agentName);
    return { agent: ctx.agentName, settings: settingsOf(agent), mcpServers: serversSummary(agent) };
  },
  set(ctx: ToolContext, input: { key: string; value: string }) {
    const key = checkKey(input.key);
    return editBundle(ctx, {
      message: `${ctx.agentName}: set ${key}`,
      edit: ({ documents }) => {
        agentDocument(documents, ctx.agentName).setIn(['metadata', 'labels', `${SETTING_PREFIX}${key}`], input.value);
        return undefined;
      },
    });
  },
  mcpAdd(ctx: ToolContext, input: ServerInput & { name: string; command: string }) {
    const name = checkServerName(input.name);
    return editBundle(ctx, {
      message: `${ctx.agentName}: add MCP server ${name}`,
      edit: ({ documents }) => {
        const agent = agentDocument(documents, ctx.agentName);
        const config = mcpConfig(agent, true) as YAMLMap;
        if (
          ['servers', 'disabledServers'].some((list) => {
            const seq = config.get(list, true);
            return isSeq(seq) && seq.items.some((item) => isMap(item) && item.get('name') === name);
          })
        )
          throw new GoondanError('E_TOOL_INVALID_ARGS', `An MCP server named '${name}' exists already.`, {
            suggestion: `Change it with settings__mcp_update_server { id: "${name}" }, or choose another name.`,
          });
        listOf(agent, config, input.is_enabled === false ? 'disabledServers' : 'servers').items.push(
          serverNode(agent, input),
        );
        return { id: name };
      },
    });
  },
  mcpUpdate(ctx: ToolContext, input: ServerInput & { id: string }) {
    return editBundle(ctx, {
      message: `${ctx.agentName}: update MCP server ${input.id}`,
      edit: ({ documents }) => {
        const agent = agentDocument(documents, ctx.agentName);
        const config = mcpConfig(agent, false);
        const at = findServer(config, input.id);
        const from = listOf(agent, config as YAMLMap, at.list);
        const previous = (from.items[at.index] as YAMLMap).toJSON() as Record<string, JsonValue>;
        const target = input.is_enabled === undefined ? at.list : input.is_enabled ? 'servers' : 'disabledServers';
        const node = serverNode(agent, input, previous);
        const name = input.name ?? input.id;
        if (name !== input.id)
          for (const list of ['servers', 'disabledServers'] as const) {
            const seq = (config as YAMLMap).get(list, true);
            if (isSeq(seq) && seq.items.some((item) => isMap(item) && item.get('name') === name))
              throw new GoondanError('E_TOOL_INVALID_ARGS', `An MCP server named '${name}' exists already.`, {
                suggestion: 'Choose another name.',
              });
          }
        if (target === at.list) from.items[at.index] = node;
        else {
          from.items.splice(at.index, 1);
          listOf(agent, config as YAMLMap, target).items.push(node);
        }
        return { id: name, is_enabled: target === 'servers' };
      },
    });
  },
  mcpRemove(ctx: ToolContext, input: { id: string }) {
    return editBundle(ctx, {
      message: `${ctx.agentName}: remove MCP server ${input.id}`,
      edit: ({ documents }) => {
        const agent = agentDocument(documents, ctx.agentName);
        const config = mcpConfig(agent, false);
        const at = findServer(config, input.id);
        listOf(agent, config as YAMLMap, at.list).items.splice(at.index, 1);
        return { id: input.id };
      },
    });
  },
};
