import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  agentBundle,
  cleanupTempDirs,
  cliEnv,
  editBundle,
  gdn,
  gdnJson,
  mainTs,
  makeTempDir,
  repoRoot,
  startGdn,
} from './helpers.ts';

interface CatalogItem {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
}

let bundle: string;
let catalog: CatalogItem[];

/** A tool that writes to stdout and to its logger: in stdio mode both must end up on stderr. */
const noisyTool = `export const handlers = {
  shout: (ctx) => {
    console.log('noise on console.log');
    ctx.logger.log('noise on ctx.logger');
    return { shouted: true };
  },
};
`;

beforeAll(async () => {
  bundle = await agentBundle();
  await writeFile(join(bundle, 'tools', 'noisy.ts'), noisyTool);
  await editBundle(bundle, (text) =>
    text
      .replace('    - Tool/bash\n', '    - Tool/bash\n    - Tool/noisy\n')
      .replace(
        '# MODEL',
        'apiVersion: goondan.ai/v1\nkind: Tool\nmetadata: { name: noisy }\nspec:\n  entry: ./tools/noisy.ts\n  exports: [{ name: shout }]\n---\n# MODEL',
      ),
  );
  const { json } = await gdnJson<{ tools: CatalogItem[] }>(['tools', 'list', '--json', '--bundle', bundle]);
  catalog = json.tools;
});
afterAll(cleanupTempDirs);

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

/** tools/list without the annotations (mcp-serve-hardening.test.ts checks those). */
const withoutAnnotations = (tools: Array<{ annotations?: unknown }>) =>
  tools.map(({ annotations: _annotations, ...tool }) => tool);

/** What `gdn tools list --json` shows, in the shape MCP clients see. */
function expectedTools() {
  return catalog.map((item) => ({
    name: item.name,
    ...(item.description === undefined ? {} : { description: item.description }),
    inputSchema: item.parameters ?? { type: 'object' },
  }));
}

describe('gdn mcp serve (stdio)', () => {
  let client: Client;
  let transport: StdioClientTransport;
  let stderr = '';
  const protocolErrors: Error[] = [];

  beforeAll(async () => {
    transport = new StdioClientTransport({
      command: process.execPath,
      args: [mainTs, 'mcp', 'serve', '--bundle', bundle],
      env: cliEnv(),
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    client = new Client({ name: 'test', version: '1.0.0' });
    // A stray line on stdout would break the protocol: the client reports it here.
    client.onerror = (error) => protocolErrors.push(error);
    await client.connect(transport);
  });
  afterAll(async () => {
    await client.close();
  });

  test('tools/list is the catalog of `gdn tools list --json`: names, descriptions and schemas unchanged', async () => {
    const { tools } = await client.listTools();
    expect(withoutAnnotations(tools)).toEqual(expectedTools() as never);
    expect(tools.map((tool) => tool.name)).not.toContain('secret__peek');
    expect(stderr).toContain('gdn mcp serve: serving 12 tools of Agent/helper over stdio');
  });

  test('tools/call runs the pipeline: output as JSON text and structuredContent', async () => {
    const result = (await client.callTool({ name: 'calc__add', arguments: { a: 2, b: 3 } })) as CallToolResult;
    expect(result).toEqual({ content: [{ type: 'text', text: '{"sum":5}' }], structuredContent: { sum: 5 } });
  });

  test('in stdio mode, what a tool prints goes to stderr; stdout carries only the protocol', async () => {
    const result = (await client.callTool({ name: 'noisy__shout', arguments: {} })) as CallToolResult;
    expect(result.structuredContent).toEqual({ shouted: true });
    // The server's stderr arrives through a pipe read by this process: wait for it rather than for a fixed time.
    for (const deadline = Date.now() + 30_000; !stderr.includes('noise on ctx.logger') && Date.now() < deadline; )
      await Bun.sleep(10);
    expect(stderr).toContain('noise on console.log');
    expect(stderr).toContain('noise on ctx.logger');
    expect(protocolErrors).toEqual([]);
  });

  test('the workdir is the instance workspace', async () => {
    const result = (await client.callTool({
      name: 'file-system__write',
      arguments: { path: 'from-mcp.txt', content: 'written over MCP' },
    })) as CallToolResult;
    expect(result.isError).toBeUndefined();
    const file = join(bundle, '.goondan', 'workspaces', 'helper', 'default', 'from-mcp.txt');
    expect(await readFile(file, 'utf8')).toBe('written over MCP');
  });

  test('a tool outside the catalog is refused with E_TOOL_NOT_IN_CATALOG first', async () => {
    const result = (await client.callTool({ name: 'secret__peek', arguments: {} })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toStartWith("E_TOOL_NOT_IN_CATALOG: Tool 'secret__peek' is not available");
    expect(textOf(result)).toContain('\nsuggestion: ');
    expect(textOf(result)).toContain('\nhelp: docs/errors/E_TOOL_NOT_IN_CATALOG.md');
  });

  test('invalid arguments are E_TOOL_INVALID_ARGS; a failing handler is E_TOOL with its message', async () => {
    const invalid = (await client.callTool({ name: 'calc__add', arguments: { a: 'two' } })) as CallToolResult;
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toStartWith('E_TOOL_INVALID_ARGS: Invalid arguments for calc__add: ');
    expect(textOf(invalid)).toContain('b: is required');
    const boom = (await client.callTool({ name: 'calc__boom', arguments: { reason: 'test' } })) as CallToolResult;
    expect(textOf(boom)).toStartWith('E_TOOL: kaboom: test');
  });

  test('closing stdin ends the server with exit code 0', async () => {
    // Another instance: the stdio server above holds the default one (one process per instance).
    const proc = Bun.spawn([process.execPath, mainTs, 'mcp', 'serve', '--bundle', bundle, '--instance', 'stdin'], {
      env: cliEnv(),
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
    });
    proc.stdin.end();
    expect(await proc.exited).toBe(0);
    expect(await new Response(proc.stdout).text()).toBe('');
  });
});

describe('gdn mcp serve --http', () => {
  test('streamable HTTP on 127.0.0.1: list and call; SIGTERM stops it', async () => {
    const server = startGdn(['mcp', 'serve', '--bundle', bundle, '--http', '0']);
    try {
      await server.waitForStderr('/mcp (', 10_000);
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(server.stderr)![1]!;
      const client = new Client({ name: 'test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const { tools } = await client.listTools();
      expect(withoutAnnotations(tools)).toEqual(expectedTools() as never);
      const result = (await client.callTool({ name: 'calc__add', arguments: { a: 40, b: 2 } })) as CallToolResult;
      expect(result.structuredContent).toEqual({ sum: 42 });
      const refused = (await client.callTool({ name: 'secret__peek', arguments: {} })) as CallToolResult;
      expect(textOf(refused)).toStartWith('E_TOOL_NOT_IN_CATALOG: ');
      await client.close();
      // A request naming another host is refused (DNS rebinding protection).
      const rebound = await fetch(url, {
        method: 'POST',
        headers: {
          host: 'evil.example',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: '{}',
      });
      expect(rebound.status).toBe(403);
    } finally {
      server.proc.kill('SIGTERM');
    }
    const finished = await server.finish();
    expect(finished.exitCode).toBe(0);
    expect(finished.stdout).toBe('');
  });
});

/** True while the process runs (a zombie waiting for a late-reaping init counts as ended). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = Bun.spawnSync(['ps', '-o', 'stat=', '-p', String(pid)])
    .stdout.toString()
    .trim();
  return stat !== '' && !stat.startsWith('Z');
}

describe('gdn mcp serve of an agent that uses the mcp extension', () => {
  test('the tools of its MCP servers are served too (a proxy), and the servers end with gdn', async () => {
    const dir = await agentBundle();
    const fixtureServer = join(repoRoot, 'packages', 'base', 'extensions', 'mcp', '__fixtures__', 'fixture-server.ts');
    const server = { name: 'inner', command: process.execPath, args: [fixtureServer] };
    await editBundle(dir, (text) =>
      text.replace(
        '  tools:\n    - Tool/calc\n',
        `  extensions:\n    - ref: Extension/mcp\n      config: { servers: [${JSON.stringify(server)}] }\n  tools:\n    - Tool/calc\n`,
      ),
    );
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [mainTs, 'mcp', 'serve', '--bundle', dir],
        env: cliEnv(),
        stderr: 'ignore',
      }),
    );
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('calc__add');
    expect(names).toContain('inner__echo');
    const echoed = (await client.callTool({ name: 'inner__echo', arguments: { text: 'two hops' } })) as CallToolResult;
    expect(echoed).toEqual({ content: [{ type: 'text', text: 'two hops' }] });
    const whoami = (await client.callTool({ name: 'inner__whoami', arguments: {} })) as CallToolResult;
    const { pid } = whoami.structuredContent as { pid: number };
    expect(isRunning(pid)).toBe(true);
    await client.close();
    const deadline = Date.now() + 30_000;
    while (isRunning(pid) && Date.now() < deadline) await Bun.sleep(20);
    expect(isRunning(pid)).toBe(false);
  });
});

test('the start line counts one tool as one tool', async () => {
  const dir = join(await makeTempDir('gdn-mcp-one-'), 'bot');
  expect((await gdn(['init', dir])).exitCode).toBe(0);
  // Input closed at once: the stdio server starts, says what it serves, and ends.
  const result = await gdn(['mcp', 'serve', '--bundle', dir], { stdin: '' });
  expect(result.exitCode).toBe(0);
  expect(result.stderr).toContain('gdn mcp serve: serving 1 tool of Agent/assistant over stdio\n');
});
