import type { ExtensionApi, ToolCatalogItem, ToolHandler } from '@goondan/core';
import { MAX_LIST_PAGES, MAX_TOOL_DEFINITION_CHARS, type McpToolList, toParameters } from './list-mcp-tools.ts';
import { McpConnection, type McpTool } from './mcp-connection.ts';
import type { McpServerConfig } from './parse-config.ts';
import { toToolOutput } from './to-tool-output.ts';
import { mcpToolName } from './tool-names.ts';

interface RegisteredMcpTool {
  mcpName: string;
  /** Description and input schema as registered; a change re-registers the tool. */
  fingerprint: string;
}

export interface McpBridgeOptions {
  api: Pick<ExtensionApi, 'extensionName' | 'tools' | 'logger'> &
    Partial<Pick<ExtensionApi, 'agentName' | 'instanceKey'>>;
  servers: readonly McpServerConfig[];
  /** First background reconnect delay (tests shorten it). */
  retryDelayMs?: number;
}

/**
 * Keeps the agent's registry in step with the tools of its MCP servers: every tool of server `s` is registered as
 * `s__tool` (source `{type: 'mcp'}`), and re-synchronised after each reconnect and `tools/list_changed` (removed
 * tools unregistered, new ones registered, changed ones replaced). A name is never taken from a tool that holds it.
 */
export class McpBridge {
  readonly connections = new Map<string, McpConnection>();
  private readonly registered = new Map<string, Map<string, RegisteredMcpTool>>();
  /** Problems already logged (collisions, duplicates), so each refresh does not repeat them. */
  private readonly reported = new Set<string>();

  constructor(private readonly options: McpBridgeOptions) {
    for (const config of options.servers) {
      const connection: McpConnection = new McpConnection({
        config,
        logger: options.api.logger,
        ...(options.api.agentName
          ? { caller: { agentName: options.api.agentName, instanceKey: options.api.instanceKey ?? 'default' } }
          : {}),
        retryDelayMs: options.retryDelayMs,
        onTools: (list) => this.sync(connection, config, list),
      });
      this.connections.set(config.name, connection);
    }
  }

  /**
   * Connects to every server in parallel. A server that fails is logged and retried in the background (its tools
   * appear once it connects); only a server marked `required: true` makes this reject.
   */
  async start(): Promise<void> {
    const entries = [...this.connections.values()];
    const results = await Promise.allSettled(entries.map((connection) => connection.connect()));
    const failedRequired = this.options.servers.filter(
      (config, index) => config.required && results[index]?.status === 'rejected',
    );
    if (failedRequired.length > 0) {
      const reasons = failedRequired.map((config) => {
        const result = results[this.options.servers.indexOf(config)] as PromiseRejectedResult;
        return (result.reason as Error)?.message ?? String(result.reason);
      });
      throw new Error(
        `required MCP server${failedRequired.length === 1 ? '' : 's'} unavailable: ${reasons.join('; ')}`,
      );
    }
  }

  /** The names registered for one server, in registration order. */
  toolNames(serverName: string): string[] {
    return [...(this.registered.get(serverName)?.keys() ?? [])];
  }

  async close(): Promise<void> {
    await Promise.all([...this.connections.values()].map((connection) => connection.close()));
  }

  private sync(connection: McpConnection, config: McpServerConfig, list: McpToolList): void {
    const { api } = this.options;
    this.reportListProblems(config.name, list);
    const { tools } = list;
    const current = this.registered.get(config.name) ?? new Map<string, RegisteredMcpTool>();
    this.registered.set(config.name, current);
    // Tools that already hold a name keep it: they go first when names are handed out.
    const holders = new Set([...current.values()].map((entry) => entry.mcpName));
    const ordered = [
      ...tools.filter((tool) => holders.has(tool.name)),
      ...tools.filter((tool) => !holders.has(tool.name)),
    ];
    const wanted = new Map<string, McpTool>();
    for (const tool of ordered) {
      if (tool.execution?.taskSupport === 'required' && !connection.supportsToolTasks) {
        // It could never be called: offering it would have the model try, and the error would blame the server.
        this.reportOnce(
          `tasks:${config.name}:${tool.name}`,
          `MCP tool '${tool.name}' of server '${config.name}' is skipped: it requires MCP tasks (execution.taskSupport: required) but the server does not declare tasks for tools/call.`,
          'warn',
        );
        continue;
      }
      const name = mcpToolName(config.name, tool.name);
      const holder = wanted.get(name);
      if (holder) {
        this.reportOnce(
          `collision:${config.name}:${holder.name}:${tool.name}`,
          `MCP tools '${holder.name}' and '${tool.name}' of server '${config.name}' both map to the tool name '${name}'; '${tool.name}' is skipped (rename one of them on the server).`,
        );
        continue;
      }
      wanted.set(name, tool);
    }
    for (const [name, entry] of current) {
      const tool = wanted.get(name);
      if (tool && tool.name === entry.mcpName && fingerprintOf(tool) === entry.fingerprint) continue;
      api.tools.unregister(name);
      current.delete(name);
    }
    for (const [name, tool] of wanted) {
      if (current.has(name)) continue;
      const item: ToolCatalogItem = {
        name,
        ...(tool.description === undefined ? {} : { description: tool.description }),
        parameters: toParameters(tool.inputSchema),
        source: { type: 'mcp', name: config.name, mcp: { extensionName: api.extensionName, serverName: config.name } },
      };
      const where = { serverName: config.name, toolName: tool.name };
      const asTask = tool.execution?.taskSupport === 'required';
      const handler: ToolHandler = async (ctx, input) =>
        toToolOutput(
          await connection.callTool({ mcpName: tool.name, args: input ?? {}, signal: ctx.signal, asTask }),
          where,
        );
      try {
        api.tools.register(item, handler, {
          timeoutMs: config.timeoutMs,
          category: config.toolCategories.get(tool.name) ?? config.category,
        });
        current.set(name, { mcpName: tool.name, fingerprint: fingerprintOf(tool) });
      } catch (thrown) {
        this.reportOnce(
          `register:${name}:${tool.name}`,
          `MCP tool '${tool.name}' of server '${config.name}' is skipped: ${(thrown as Error)?.message ?? String(thrown)}`,
        );
      }
    }
  }

  /** What the listing left out or cut, each said once (a refresh lists the same again). */
  private reportListProblems(serverName: string, list: McpToolList): void {
    for (const { tool, problem } of list.malformed) {
      this.reportOnce(
        `malformed:${serverName}:${tool}:${problem}`,
        `MCP tool ${tool} of server '${serverName}' is skipped: its definition is malformed: ${problem}`,
      );
    }
    for (const { tool, chars } of list.oversized) {
      this.reportOnce(
        `oversized:${serverName}:${tool}:${chars}`,
        `MCP tool ${tool} of server '${serverName}' is skipped: its description and inputSchema are ${chars} characters of JSON, more than the ${MAX_TOOL_DEFINITION_CHARS} a tool may take in the model's tool list (sent at every step).`,
      );
    }
    for (const name of list.repeated) {
      this.reportOnce(
        `repeated:${serverName}:${name}`,
        `MCP server '${serverName}' lists the tool '${name}' more than once; the first definition is used.`,
        'warn',
      );
    }
    if (list.cutAtCursor !== undefined) {
      this.reportOnce(
        `cut:${serverName}`,
        `MCP server '${serverName}': tools/list had more than ${MAX_LIST_PAGES} pages (the last nextCursor: ${JSON.stringify(list.cutAtCursor)}); only the tools of the first ${MAX_LIST_PAGES} are used.`,
        'warn',
      );
    }
  }

  private reportOnce(key: string, message: string, level: 'error' | 'warn' = 'error'): void {
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.options.api.logger[level](message);
  }
}

function fingerprintOf(tool: McpTool): string {
  return JSON.stringify([tool.description ?? null, tool.inputSchema, tool.execution?.taskSupport ?? null]);
}
