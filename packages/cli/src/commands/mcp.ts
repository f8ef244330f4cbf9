import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import {
  type Bundle,
  createAgentToolset,
  createMessage,
  createScriptedModel,
  instancePaths,
  type JsonObject,
  openAgentInstance,
  selectAgent,
  type ToolCall,
  type ToolCatalog,
  type ToolCatalogItem,
  type ToolHandler,
  type ToolResult,
} from '@goondan/core';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { parseCommandArgs } from '../cli-args.ts';
import { openBundle } from '../open-bundle.ts';
import { UsageError, useColor } from '../terminal.ts';
import { printProblems } from './validate.ts';

export const mcpHelp = `Usage: gdn mcp serve [--agent A] [--http PORT] [--instance K] [--bundle DIR]

  Offers the agent's tool catalog to MCP clients: what its model would see at the next Step, exactly what
  'gdn tools list' shows (the agent instance is opened, so tools of its extensions, such as mcp, count).
  Each tools/call runs through the real pipeline — catalog guard, argument validation, toolCall middleware,
  handler — with the instance workspace (<bundle>/.goondan/workspaces/<agent>/<instance>) as the workdir.

  --agent A      the agent whose catalog is served (default: the only Agent; without agents, every Tool)
  --http PORT    serve streamable HTTP on http://127.0.0.1:PORT/mcp (0: any free port, printed on stderr)
                 instead of stdio
  --instance K   instance key of the workspace (default: "default")

  In stdio mode stdout carries only the protocol; logs go to stderr. No model is called.

  Results: ok → the output as text (JSON unless it is a string) and as structuredContent when it is an object;
  error → isError with the text '<CODE>: <message>', then the suggestion and help link.

Example client configuration (Claude Desktop, Cursor, ...):
  { "command": "gdn", "args": ["mcp", "serve", "--bundle", "/path/to/bundle"] }`;

/** Sessions one HTTP server keeps at most (each is a Server object); a new one then ends the least recently used. */
const MAX_HTTP_SESSIONS = 100;

export async function mcpCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    console.log(mcpHelp);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== 'serve') throw new UsageError(`unknown subcommand 'mcp ${sub}' (expected serve)`, 'mcp');
  const { values, positionals } = parseCommandArgs({
    command: 'mcp',
    argv: rest,
    spec: { agent: { type: 'string' }, http: { type: 'string' }, instance: { type: 'string' } },
  });
  if (values.help) {
    console.log(mcpHelp);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`, 'mcp');
  const port = values.http === undefined ? undefined : parsePort(values.http);
  // stdout belongs to the protocol in stdio mode: anything a tool or module logs goes to stderr.
  if (port === undefined) redirectConsoleToStderr();
  const opened = await openBundle(values.bundle);
  if (!opened.bundle) {
    printProblems(opened.dir, opened.problems, useColor(process.stderr));
    return 1;
  }
  const logger = stderrLogger();
  const served = await openServed({
    bundle: opened.bundle,
    handlers: opened.handlers,
    agentName: values.agent,
    instanceKey: values.instance ?? 'default',
    logger,
  });
  const what = `${(await served.catalog()).size} tools of ${served.label}`;
  try {
    return port === undefined ? await serveStdio(served, what) : await serveHttp(served, port, what);
  } finally {
    await served.close(); // stops jobs, closes extensions (and the MCP servers they started)
    exitSoon();
  }
}

/** What is served: the catalog the model would see at its next Step, and calls through the real pipeline. */
interface Served {
  /** `Agent/name`, or `every Tool of the bundle` in tool-development mode. */
  label: string;
  catalog(): Promise<ToolCatalog>;
  call(call: ToolCall, signal: AbortSignal): Promise<ToolResult>;
  close(): Promise<void>;
}

/**
 * With an Agent: its real instance (workspace, state, extensions such as mcp or tool exposure, their step and toolCall
 * middleware) on a placeholder model that is never called, so what is served is what `gdn tools list` shows. Without
 * agents: every Tool the bundle declares, as `gdn tools list` does.
 */
async function openServed(options: {
  bundle: Bundle;
  handlers: Map<string, Record<string, ToolHandler>>;
  agentName: string | undefined;
  instanceKey: string;
  logger: Console;
}): Promise<Served> {
  const { bundle, handlers, instanceKey, logger } = options;
  const agent = selectAgent(bundle, options.agentName);
  if (agent) {
    const instance = await openAgentInstance({
      bundle,
      handlers,
      agent,
      instanceKey,
      model: createScriptedModel([], { modelId: 'mcp-serve' }),
      deliverJobCompletions: false,
      // Serves tools beside a running `gdn run`/`chat` of the instance: reads its conversation, never writes it.
      writer: false,
      logger,
      // A call whose permissions say ask waits, stored, for an answer given with `gdn approvals`.
      observer: {
        onApprovalRequested: (record) =>
          logger.error(
            `approval needed ${record.id}: ${record.toolName} (${record.rule}); answer with 'gdn approvals approve ${record.id}' or 'gdn approvals deny ${record.id} --reason TEXT'`,
          ),
      },
    });
    return {
      label: `Agent/${agent.metadata.name}`,
      catalog: () => instance.previewCatalog({ source: MCP_CLIENT_SOURCE }),
      call: (call, signal) => instance.callTool(call, { signal, source: MCP_CLIENT_SOURCE }),
      close: () => instance.close(),
    };
  }
  const toolset = createAgentToolset({ bundle, handlers, agent: null });
  const { workdir } = instancePaths({ rootDir: bundle.rootDir, agentName: 'cli', instanceKey });
  mkdirSync(workdir, { recursive: true });
  return {
    label: 'every Tool of the bundle',
    catalog: async () => toolset.catalogBuilder.build(),
    call: (call, signal) =>
      toolset.executor.execute(call, {
        catalog: toolset.catalogBuilder.build(),
        scope: {
          agentName: 'cli',
          instanceKey,
          turnId: `turn_mcp_${randomUUID()}`,
          message: createMessage(
            {
              role: 'assistant',
              content: [{ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.args }],
            },
            { type: 'assistant' },
          ),
          workdir,
          logger,
          signal,
          source: MCP_CLIENT_SOURCE,
        },
      }),
    close: async () => toolset.executor.jobs.abortAll(),
  };
}

/** Calls from MCP clients come from this turn source: permissions may give them rules of their own. */
const MCP_CLIENT_SOURCE = { kind: 'mcp', name: 'client' } as const;

function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535)
    throw new UsageError(`--http needs a port from 0 to 65535, got '${text}'`, 'mcp');
  return port;
}

/** The tools' ctx.logger: every level on stderr, in both modes. */
function stderrLogger(): Console {
  const toStderr = (...values: unknown[]) => console.error(...values);
  return { ...console, log: toStderr, info: toStderr, debug: toStderr } as Console;
}

function redirectConsoleToStderr(): void {
  const toStderr = (...values: unknown[]) => console.error(...values);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

/** An MCP Server whose tools are the catalog; one per client connection (stdio) or HTTP session. */
function createServer(served: Served): Server {
  const server = new Server({ name: 'goondan', version: '0.1.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await served.catalog()).items.map(toMcpTool),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const call: ToolCall = {
      id: `call_mcp_${randomUUID()}`,
      name: request.params.name,
      args: (request.params.arguments ?? {}) as JsonObject,
    };
    return toCallToolResult(await served.call(call, extra.signal));
  });
  return server;
}

/** The catalog item as an MCP tool; the parameters schema goes out exactly as declared. */
function toMcpTool(item: ToolCatalogItem): Tool {
  return {
    name: item.name,
    ...(item.description === undefined ? {} : { description: item.description }),
    inputSchema: (item.parameters ?? { type: 'object' }) as Tool['inputSchema'],
  };
}

/** Our ToolResult as an MCP tools/call result (errors are results with isError, never protocol errors). */
export function toCallToolResult(result: ToolResult): CallToolResult {
  if (result.status === 'error') {
    const error = result.error ?? { message: 'unknown error' };
    const lines = [`${error.code ?? 'E_TOOL'}: ${error.message}`];
    if (error.suggestion) lines.push(`suggestion: ${error.suggestion}`);
    if (error.helpUrl) lines.push(`help: ${error.helpUrl}`);
    return { isError: true, content: [{ type: 'text', text: lines.join('\n') }] };
  }
  if (result.status === 'pending') {
    return {
      content: [{ type: 'text', text: `pending: the tool goes on as job ${result.handle}` }],
      structuredContent: { status: 'pending', handle: result.handle ?? null },
    };
  }
  const output = result.output ?? null;
  const text = typeof output === 'string' ? output : JSON.stringify(output);
  const isObject = typeof output === 'object' && output !== null && !Array.isArray(output);
  return { content: [{ type: 'text', text }], ...(isObject ? { structuredContent: output } : {}) };
}

/** Serves until the client closes stdin or the process gets SIGINT/SIGTERM. */
async function serveStdio(served: Served, what: string): Promise<number> {
  const server = createServer(served);
  const stopped = Promise.withResolvers<void>();
  process.stdin.once('end', () => stopped.resolve());
  process.once('SIGINT', () => stopped.resolve());
  process.once('SIGTERM', () => stopped.resolve());
  server.onclose = () => stopped.resolve();
  await server.connect(new StdioServerTransport());
  console.error(`gdn mcp serve: serving ${what} over stdio`);
  await stopped.promise;
  await server.close().catch(() => {});
  return 0;
}

/** Streamable HTTP on 127.0.0.1 only, one Server per session; serves until SIGINT/SIGTERM. */
async function serveHttp(served: Served, port: number, what: string): Promise<number> {
  const sessions = new Map<string, { server: Server; transport: WebStandardStreamableHTTPServerTransport }>();
  const jsonError = (status: number, message: string) =>
    Response.json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }, { status });
  let http: ReturnType<typeof Bun.serve>;
  try {
    http = Bun.serve({
      hostname: '127.0.0.1',
      port,
      idleTimeout: 0, // SSE streams stay open; the SDK sends keep-alives
      async fetch(request) {
        if (new URL(request.url).pathname !== '/mcp')
          return new Response('Not found: the MCP endpoint is /mcp\n', { status: 404 });
        const sessionId = request.headers.get('mcp-session-id');
        if (sessionId) {
          const session = sessions.get(sessionId);
          if (!session) return jsonError(404, 'Session not found; start a new one with initialize');
          // Most recently used last, so the first entry is the one to evict.
          sessions.delete(sessionId);
          sessions.set(sessionId, session);
          return session.transport.handleRequest(request);
        }
        if (request.method !== 'POST') return jsonError(400, 'No mcp-session-id header; start with initialize');
        if (sessions.size >= MAX_HTTP_SESSIONS) {
          // Clients often disconnect without DELETE; the least recently used session makes room.
          const [oldestId, oldest] = sessions.entries().next().value!;
          sessions.delete(oldestId);
          await oldest.server.close().catch(() => {});
        }
        const server = createServer(served);
        const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableDnsRebindingProtection: true,
          allowedHosts: [`127.0.0.1:${http.port}`, `localhost:${http.port}`],
          onsessioninitialized: (id) => {
            sessions.set(id, { server, transport });
          },
          onsessionclosed: (id) => {
            sessions.delete(id);
          },
        });
        await server.connect(transport);
        const response = await transport.handleRequest(request);
        if (transport.sessionId === undefined) await server.close().catch(() => {}); // not an initialize
        return response;
      },
    });
  } catch (thrown) {
    console.error(`gdn mcp serve: cannot listen on 127.0.0.1:${port}: ${(thrown as Error)?.message ?? thrown}`);
    return 1;
  }
  console.error(`gdn mcp serve: listening on http://127.0.0.1:${http.port}/mcp (${what})`);
  const stopped = Promise.withResolvers<void>();
  process.once('SIGINT', () => stopped.resolve());
  process.once('SIGTERM', () => stopped.resolve());
  await stopped.promise;
  await Promise.all([...sessions.values()].map(({ server }) => server.close().catch(() => {})));
  await http.stop(true);
  return 0;
}

/** Lets gdn exit once it has answered, even if a tool left a handle open (a server has nothing left to do). */
function exitSoon(): void {
  setTimeout(() => process.exit(), 200).unref();
}
