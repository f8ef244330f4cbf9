import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  ListToolsResultSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { agentBundle, cleanupTempDirs, cliEnv, editBundle, mainTs } from './helpers.ts';

/**
 * `gdn mcp serve` (stdio) fed what a careless or hostile client, tool or extension does: oversized and malformed
 * messages, invalid tools/call params, tools that write to process.stdout, a step middleware that throws.
 */

/** A tool that writes straight to process.stdout (no newline): in stdio mode that is the protocol channel. */
const writerTool = `export const handlers = {
  scribble: () => {
    process.stdout.write('scribbled on stdout without a newline');
    return { scribbled: true };
  },
};
`;

/** A step middleware that throws while the file fail-steps exists next to goondan.yaml. */
const flakyExtension = `import { existsSync } from 'node:fs';
import { join } from 'node:path';
export function register(api) {
  api.pipeline.register('step', async (ctx) => {
    if (existsSync(join(import.meta.dir, '..', 'fail-steps'))) throw new Error('the flaky middleware broke');
    return ctx.next();
  });
}
`;

let bundle: string;
beforeAll(async () => {
  bundle = await agentBundle();
  await writeFile(join(bundle, 'tools', 'writer.ts'), writerTool);
  await writeFile(join(bundle, 'tools', 'flaky.ts'), flakyExtension);
  await editBundle(bundle, (text) =>
    text
      .replace('    - Tool/bash\n', '    - Tool/bash\n    - Tool/writer\n  extensions:\n    - Extension/flaky\n')
      .replace(
        '# MODEL',
        [
          'apiVersion: goondan.ai/v1',
          'kind: Tool',
          'metadata: { name: writer }',
          'spec:',
          '  entry: ./tools/writer.ts',
          '  exports: [{ name: scribble }]',
          '---',
          'apiVersion: goondan.ai/v1',
          'kind: Extension',
          'metadata: { name: flaky }',
          'spec:',
          '  entry: ./tools/flaky.ts',
          '---',
          '# MODEL',
        ].join('\n'),
      ),
  );
});
afterAll(cleanupTempDirs);

let instances = 0;
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

/** The SDK's client on `gdn mcp serve` over stdio (an instance of its own), with the server's stderr. */
async function connect() {
  instances += 1;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [mainTs, 'mcp', 'serve', '--bundle', bundle, '--instance', `misuse-${instances}`],
    env: cliEnv(),
    stderr: 'pipe',
  });
  const output = { stderr: '' };
  transport.stderr?.on('data', (chunk: Buffer) => {
    output.stderr += chunk.toString();
  });
  const client = new Client({ name: 'test', version: '1.0.0' });
  const protocolErrors: Error[] = [];
  // A stray byte on stdout would break the protocol: the client reports it here.
  client.onerror = (error) => protocolErrors.push(error);
  await client.connect(transport);
  cleanups.push(() => client.close());
  return { client, output, protocolErrors };
}

/** `gdn mcp serve` over raw stdio: lines in, parsed JSON-RPC messages out; initialized unless `initialize: false`. */
async function rawServe(options: { initialize?: boolean } = {}) {
  instances += 1;
  const proc = Bun.spawn(
    [process.execPath, mainTs, 'mcp', 'serve', '--bundle', bundle, '--instance', `misuse-${instances}`],
    {
      env: cliEnv(),
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
    },
  );
  cleanups.push(async () => {
    proc.stdin.end();
    await proc.exited;
  });
  const received: Array<{
    jsonrpc?: string;
    id?: unknown;
    result?: unknown;
    error?: { code: number; message: string };
  }> = [];
  const output = { stdout: '', stderr: '' };
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout) {
      output.stdout += decoder.decode(chunk, { stream: true });
      const lines = output.stdout.split('\n');
      output.stdout = lines.pop() ?? '';
      for (const line of lines) received.push(JSON.parse(line));
    }
  })();
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stderr) output.stderr += decoder.decode(chunk, { stream: true });
  })();
  const until = async (check: () => boolean, what: string) => {
    for (const deadline = Date.now() + 30_000; !check(); await Bun.sleep(10)) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; stderr:\n${output.stderr}`);
    }
  };
  const send = (line: string) => {
    proc.stdin.write(`${line}\n`);
    proc.stdin.flush();
  };
  /** The answer with this id (null: answers to what had no usable id, in order). */
  const answer = async (id: unknown, nth = 0) => {
    await until(() => received.filter((message) => message.id === id).length > nth, `the answer ${id}`);
    return received.filter((message) => message.id === id)[nth]!;
  };
  if (options.initialize === false) return { proc, send, answer, output, until, received };
  send(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  );
  await answer(0);
  send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  return { proc, send, answer, output, until, received };
}

describe('gdn mcp serve (stdio): what does not fit the protocol', () => {
  test('a message over 10 MiB is answered with an error and skipped; the server goes on serving', async () => {
    const { client, output } = await connect();
    const huge = 'x'.repeat(11 * 1024 * 1024);
    const refused = await client.callTool({ name: 'calc__add', arguments: { a: 1, b: 2, pad: huge } }).catch((e) => e);
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).code).toBe(-32600);
    expect((refused as McpError).message).toContain('10485760 bytes');
    expect(output.stderr).toMatch(
      /gdn mcp serve: stdin: a message of \d+ bytes, more than 10485760 bytes \(10 MiB\), was skipped; answered -32600/,
    );
    const result = (await client.callTool({ name: 'calc__add', arguments: { a: 2, b: 3 } })) as CallToolResult;
    expect(result.structuredContent).toEqual({ sum: 5 });
  });

  test('a line that is not JSON, a batch, a wrong jsonrpc version, a bad _meta: each answered, logged, and serving goes on', async () => {
    const server = await rawServe();
    server.send('this is not JSON');
    expect(await server.answer(null)).toMatchObject({ error: { code: -32700 } });
    server.send(JSON.stringify([{ jsonrpc: '2.0', id: 5, method: 'tools/list' }]));
    expect((await server.answer(5)).error).toMatchObject({ code: -32600, message: expect.stringContaining('batch') });
    server.send(JSON.stringify({ jsonrpc: '1.0', id: 6, method: 'tools/list' }));
    expect((await server.answer(6)).error).toMatchObject({ code: -32600, message: expect.stringContaining('jsonrpc') });
    // A valid JSON-RPC request whose params break MCP's _meta: Invalid params, not "not a JSON-RPC request".
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/list', params: { _meta: 5 } }));
    expect((await server.answer(8)).error).toEqual({
      code: -32602,
      message: 'Invalid params: params._meta must be an object (got a number)',
    });
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping', params: { _meta: { progressToken: 1.5 } } }));
    expect((await server.answer(9)).error).toEqual({
      code: -32602,
      message: 'Invalid params: params._meta.progressToken must be a string or an integer (got a number)',
    });
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }));
    expect((await server.answer(7)).result).toMatchObject({ tools: expect.any(Array) });
    await server.until(() => server.output.stderr.includes('jsonrpc'), 'the log lines');
    const logged = server.output.stderr.split('\n').filter((line) => line.startsWith('gdn mcp serve: stdin: '));
    expect(logged).toHaveLength(5);
  });
});

describe('gdn mcp serve (stdio): the lifecycle (initialize first)', () => {
  const initialize = (id: number) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });

  test('before initialize: tools/list and tools/call get -32000 Server not initialized and no result; ping is answered', async () => {
    const server = await rawServe({ initialize: false });
    // It used to answer with the catalog, to a client that never initialized (no version, no capabilities agreed).
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    server.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'calc__add', arguments: { a: 1, b: 2 } },
      }),
    );
    server.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }));
    const notInitialized = {
      code: -32000,
      message: 'Server not initialized: send initialize first (before it, only ping is answered)',
    };
    expect(await server.answer(1)).toEqual({ jsonrpc: '2.0', id: 1, error: notInitialized });
    expect(await server.answer(2)).toEqual({ jsonrpc: '2.0', id: 2, error: notInitialized });
    expect(await server.answer(3)).toEqual({ jsonrpc: '2.0', id: 3, result: {} });

    // Then initialize, and everything as before.
    server.send(initialize(4));
    expect((await server.answer(4)).result).toMatchObject({ serverInfo: { name: 'goondan' } });
    server.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }));
    expect((await server.answer(5)).result).toMatchObject({ tools: expect.arrayContaining([expect.anything()]) });
    server.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 6,
        method: 'tools/call',
        params: { name: 'calc__add', arguments: { a: 1, b: 2 } },
      }),
    );
    expect(await server.answer(6)).toMatchObject({ result: { structuredContent: { sum: 3 } } });
    // Each early request was answered once, with the error: no result came later.
    for (const id of [1, 2]) expect(server.received.filter((message) => message.id === id)).toHaveLength(1);
    expect(server.received.filter((message) => message.id !== undefined && 'result' in message)).toHaveLength(4);
    await server.until(() => server.output.stderr.includes('before initialize was ignored'), 'the log lines');
    const logged = server.output.stderr.split('\n').filter((line) => line.startsWith('gdn mcp serve: stdin: '));
    expect(logged).toEqual([
      'gdn mcp serve: stdin: a request ("tools/list") before initialize was refused; answered -32000',
      'gdn mcp serve: stdin: a request ("tools/call") before initialize was refused; answered -32000',
      'gdn mcp serve: stdin: a notification ("notifications/initialized") before initialize was ignored',
    ]);
  });

  test('a second initialize on the connection is -32600 Server already initialized; the session goes on', async () => {
    const server = await rawServe();
    server.send(initialize(2));
    expect(await server.answer(2)).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32600, message: 'Invalid Request: Server already initialized; a connection is initialized once' },
    });
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }));
    expect((await server.answer(3)).result).toMatchObject({ tools: expect.any(Array) });
    await server.until(() => server.output.stderr.includes('a second initialize'), 'the log line');
    expect(server.output.stderr).toContain(
      'gdn mcp serve: stdin: a second initialize was refused (a connection is initialized once); answered -32600',
    );
  });

  test("the SDK's client, which initializes first, is served as before; its ping too", async () => {
    const { client, protocolErrors } = await connect();
    await client.ping();
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('calc__add');
    expect(protocolErrors).toEqual([]);
  });
});

describe('gdn mcp serve (stdio): params the SDK checks with its schemas', () => {
  test('initialize and tools/list params of the wrong type are -32602 in one line, not -32603 and a schema dump', async () => {
    const server = await rawServe();
    const cases: Array<[object, string]> = [
      [
        {
          method: 'initialize',
          params: { protocolVersion: 5, capabilities: {}, clientInfo: { name: 'x', version: '1' } },
        },
        'Invalid params: params.protocolVersion: expected string, received number',
      ],
      [{ method: 'initialize' }, 'Invalid params: params: expected object, received undefined'],
      [
        { method: 'tools/list', params: { cursor: 5 } },
        'Invalid params: params.cursor: expected string, received number',
      ],
    ];
    for (const [index, [request, message]] of cases.entries()) {
      server.send(JSON.stringify({ jsonrpc: '2.0', id: 20 + index, ...request }));
      expect((await server.answer(20 + index)).error).toEqual({ code: -32602, message });
    }
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 30, method: 'tools/list', params: {} }));
    expect((await server.answer(30)).result).toMatchObject({ tools: expect.any(Array) });
  });
});

describe('gdn mcp serve (stdio): a client that stops reading', () => {
  test('its end of stdout closed (stdin still open): the next answer fails with EPIPE, said once, and the server ends', async () => {
    instances += 1;
    const proc = Bun.spawn(
      [process.execPath, mainTs, 'mcp', 'serve', '--bundle', bundle, '--instance', `misuse-${instances}`],
      { env: cliEnv(), stdin: 'pipe', stdout: 'pipe', stderr: 'pipe' },
    );
    cleanups.push(async () => {
      proc.kill();
      await proc.exited;
    });
    const stderr = new Response(proc.stderr).text();
    proc.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`,
    );
    proc.stdin.flush();
    const stdout = proc.stdout.getReader();
    expect(new TextDecoder().decode((await stdout.read()).value)).toContain('"id":0');
    await stdout.cancel(); // the client's end of the pipe is closed; stdin stays open
    for (let id = 1; id <= 20; id += 1) {
      proc.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'calc__add', arguments: { a: id, b: 1 } } })}\n`,
      );
    }
    proc.stdin.flush();
    // It used to go on running every call for nobody, each answer an unhandled rejection with its stack on stderr.
    expect(await proc.exited).toBe(0);
    const logged = await stderr;
    expect(logged).toContain('gdn mcp serve: stdout: EPIPE');
    expect(logged.split('the client no longer reads the answers')).toHaveLength(2);
    expect(logged).not.toContain('Unhandled');
    expect(logged).not.toContain('Failed to send');
  });
});

describe('gdn mcp serve (stdio): tools/call params', () => {
  test('wrong param types are -32602 Invalid params with a short message, not -32603 and a schema dump', async () => {
    const { client } = await connect();
    const cases: Array<[unknown, string]> = [
      [{ name: 'calc__add', arguments: 'x' }, 'params.arguments must be an object'],
      [{ name: 'calc__add', arguments: [1, 2] }, 'params.arguments must be an object'],
      [{ name: 'calc__add', arguments: null }, 'params.arguments must be an object'],
      [{ arguments: {} }, 'params.name'],
      [{ name: 42, arguments: {} }, 'params.name'],
      [undefined, 'params'],
    ];
    for (const [params, expected] of cases) {
      const request = params === undefined ? { method: 'tools/call' } : { method: 'tools/call', params };
      const refused = await client.request(request as never, CallToolResultSchema).catch((e) => e);
      expect(refused).toBeInstanceOf(McpError);
      expect((refused as McpError).code).toBe(-32602);
      expect((refused as McpError).message).toContain(expected);
      expect((refused as McpError).message).not.toContain('\n');
    }
    expect((await client.callTool({ name: 'calc__add', arguments: { a: 1, b: 1 } })).structuredContent).toEqual({
      sum: 2,
    });
  });
});

describe('gdn mcp serve (stdio): tools/list with a cursor', () => {
  test('is -32602 Invalid params: no nextCursor is ever given, so any cursor is made up', async () => {
    const { client } = await connect();
    const refused = await client
      .request({ method: 'tools/list', params: { cursor: 'garbage' } }, ListToolsResultSchema)
      .catch((e) => e);
    // It was answered with the whole list again, which a client cannot tell from a second page.
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).code).toBe(-32602);
    expect((refused as McpError).message).toContain('cursor');
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });
});

describe('gdn mcp serve (stdio): a task-augmented tools/call', () => {
  test('is run as a plain call: no tasks capability is declared, and the spec says the task metadata is then ignored', async () => {
    const server = await rawServe();
    server.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'calc__add', arguments: { a: 2, b: 2 }, task: { ttl: 60_000 } },
      }),
    );
    // The SDK answered -32603 "Server does not support task creation (required for tools/call)".
    expect(await server.answer(3)).toMatchObject({ result: { structuredContent: { sum: 4 } } });
  });
});

describe('gdn mcp serve (stdio): tools and extensions that misbehave', () => {
  test('process.stdout.write in a handler goes to stderr; the protocol stream stays intact', async () => {
    const { client, output, protocolErrors } = await connect();
    const result = (await client.callTool({ name: 'writer__scribble', arguments: {} }, undefined, {
      timeout: 20_000,
    })) as CallToolResult;
    expect(result.structuredContent).toEqual({ scribbled: true });
    expect((await client.callTool({ name: 'calc__add', arguments: { a: 1, b: 2 } })).structuredContent).toEqual({
      sum: 3,
    });
    for (const deadline = Date.now() + 30_000; !output.stderr.includes('scribbled') && Date.now() < deadline; )
      await Bun.sleep(10);
    expect(output.stderr).toContain('scribbled on stdout without a newline');
    expect(protocolErrors).toEqual([]);
  });

  // commands/mcp.ts reserves stdout before openBundle imports the bundle's modules.
  test('process.stdout.write at a tool module top level goes to stderr too', async () => {
    await writeFile(join(bundle, 'tools', 'writer.ts'), `process.stdout.write('written at import');\n${writerTool}`);
    try {
      const { client, protocolErrors } = await connect();
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      expect(protocolErrors).toEqual([]);
    } finally {
      await writeFile(join(bundle, 'tools', 'writer.ts'), writerTool);
    }
  });

  test('a step middleware that throws: tools/call is an isError result with the code; tools/list keeps the last catalog', async () => {
    const { client, output } = await connect();
    const listed = (await client.listTools()).tools.map((tool) => tool.name);
    expect(listed).toContain('calc__add');
    await writeFile(join(bundle, 'fail-steps'), '');
    cleanups.push(() => rm(join(bundle, 'fail-steps'), { force: true }));
    const failed = (await client.callTool({ name: 'calc__add', arguments: { a: 1, b: 2 } })) as CallToolResult;
    expect(failed.isError).toBe(true);
    expect((failed.content[0] as { text: string }).text).toStartWith('E_TURN_FAILED: Step middleware failed: ');
    expect((failed.content[0] as { text: string }).text).toContain('the flaky middleware broke');
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(listed);
    for (const deadline = Date.now() + 30_000; !output.stderr.includes('tools/list:') && Date.now() < deadline; )
      await Bun.sleep(10);
    expect(output.stderr).toMatch(
      /gdn mcp serve: tools\/list: E_TURN_FAILED: Step middleware failed: .*; answering with the catalog last made \(12 tools\)/,
    );
    await rm(join(bundle, 'fail-steps'));
    expect((await client.callTool({ name: 'calc__add', arguments: { a: 1, b: 2 } })).structuredContent).toEqual({
      sum: 3,
    });
  });
});
