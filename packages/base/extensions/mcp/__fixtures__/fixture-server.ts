/**
 * A real MCP server for the mcp extension's tests and benchmark, on the SDK's low-level Server (raw JSON Schemas).
 * Run as a script it serves stdio; `createFixtureServer()` gives one for another transport (HTTP tests).
 * Tools: echo, files.read + files_read (collide once made provider-safe), a__b, a 70-character name, dialect
 * ($schema 2020-12), json, multi, structured, fail (isError), protocol_error (JSON-RPC error), slow (honours
 * cancellation), stats, change_tools (list_changed), spawn_child, whoami.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';

export const echoSchema = {
  type: 'object',
  properties: { text: { type: 'string', description: 'What to echo back' } },
  required: ['text'],
  additionalProperties: false,
} as const;

export const longToolName = `long_${'x'.repeat(65)}`;

const empty = { type: 'object', properties: {} } as const;

const staticTools: Tool[] = [
  { name: 'echo', description: 'Echoes the text back.', inputSchema: echoSchema },
  {
    name: 'files.read',
    description: 'Pretends to read a file.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  { name: 'files_read', description: 'Collides with files.read once sanitised.', inputSchema: empty },
  { name: 'a__b', description: 'Double underscore inside the tool name.', inputSchema: empty },
  { name: longToolName, description: 'A name longer than 64 characters.', inputSchema: empty },
  {
    name: 'dialect',
    description: 'Declares JSON Schema 2020-12 ($schema), as zod v4 servers do.',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { n: { type: 'integer' } },
      required: ['n'],
    },
  },
  { name: 'json', description: 'Answers JSON as text.', inputSchema: empty },
  { name: 'multi', description: 'Answers two text items.', inputSchema: empty },
  { name: 'structured', description: 'Answers structuredContent.', inputSchema: empty },
  { name: 'fail', description: 'Reports isError.', inputSchema: empty },
  { name: 'protocol_error', description: 'Answers a JSON-RPC error instead of a result.', inputSchema: empty },
  {
    name: 'slow',
    description: 'Waits ms milliseconds unless cancelled.',
    inputSchema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] },
  },
  { name: 'stats', description: 'Counts of calls and cancellations seen.', inputSchema: empty },
  {
    name: 'change_tools',
    description: 'Adds and removes tools named in add/remove, then sends tools/list_changed.',
    inputSchema: {
      type: 'object',
      properties: {
        add: { type: 'array', items: { type: 'string' } },
        remove: { type: 'array', items: { type: 'string' } },
      },
    },
  },
  { name: 'spawn_child', description: 'Starts a sleeping child process; answers both pids.', inputSchema: empty },
  { name: 'whoami', description: 'pid, cwd and selected environment variables.', inputSchema: empty },
];

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

export function createFixtureServer(): Server {
  const server = new Server(
    { name: 'fixture', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true }, logging: {} } },
  );
  const hidden = new Set<string>();
  const added: Tool[] = [];
  const stats = { calls: 0, cancelled: 0, running: 0 };
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...staticTools.filter((tool) => !hidden.has(tool.name)), ...added],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    stats.calls += 1;
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    const name = request.params.name;
    if (added.some((tool) => tool.name === name)) return text(`dynamic ${name}`);
    switch (name) {
      case 'echo':
        return text(String(args.text));
      case 'files.read':
        return text(`contents of ${String(args.path)}`);
      case 'files_read':
        return text('the other files_read');
      case 'a__b':
        return text('a__b answered');
      case 'dialect':
        return text(`n=${args.n}`);
      case 'json':
        return text('{"a":1,"list":[1,2]}');
      case 'multi':
        return { content: [text('one').content[0]!, text('two').content[0]!] };
      case 'structured':
        return { content: [{ type: 'text', text: '{"answer":42}' }], structuredContent: { answer: 42, unit: 'none' } };
      case 'fail':
        return { isError: true, content: [{ type: 'text', text: 'disk on fire' }] };
      case 'protocol_error':
        throw new McpError(ErrorCode.InvalidParams, 'bad things');
      case 'slow':
        stats.running += 1;
        // Over HTTP this opens the response stream (headers and a first event), as servers streaming progress do.
        await extra.sendNotification({
          method: 'notifications/message',
          params: { level: 'info', data: 'slow started' },
        });
        return await new Promise<CallToolResult>((resolve, reject) => {
          const timer = setTimeout(() => resolve(text(`waited ${args.ms}`)), Number(args.ms));
          extra.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            stats.cancelled += 1;
            reject(new Error('cancelled'));
          });
        }).finally(() => {
          stats.running -= 1;
        });
      case 'stats':
        return { content: [], structuredContent: { ...stats } };
      case 'change_tools': {
        for (const tool of (args.add as string[] | undefined) ?? []) {
          added.push({ name: tool, description: `Dynamic tool ${tool}`, inputSchema: empty });
        }
        for (const tool of (args.remove as string[] | undefined) ?? []) hidden.add(tool);
        await server.sendToolListChanged();
        return text('changed');
      }
      case 'spawn_child': {
        const child = Bun.spawn(['sleep', '30'], { stdio: ['ignore', 'ignore', 'ignore'] });
        return { content: [], structuredContent: { pid: process.pid, childPid: child.pid } };
      }
      case 'whoami':
        return {
          content: [],
          structuredContent: {
            pid: process.pid,
            cwd: process.cwd(),
            fixtureValue: process.env.FIXTURE_VALUE ?? null,
            hasOpenAiKey: process.env.OPENAI_API_KEY !== undefined,
          },
        };
      default:
        return { isError: true, content: [{ type: 'text', text: `unknown tool ${name}` }] };
    }
  });
  return server;
}

if (import.meta.main) {
  if (process.argv.includes('--fail-on-start')) {
    console.error('fixture: refusing to start (--fail-on-start)');
    process.exit(7);
  }
  await createFixtureServer().connect(new StdioServerTransport());
}
