import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { redactSecrets, userEvent } from '@goondan/core';
import { makeBundle, openAgent, toolResults } from '../test-agent.ts';
import { echoSchema, longToolName } from './__fixtures__/fixture-server.ts';
import {
  type Bridge,
  bridgesClosedAfterEach,
  fixtureServer,
  isAlive,
  startBridge,
  stdioServer,
  waitFor,
} from './__fixtures__/harness.ts';
import { startHttpFixture } from './__fixtures__/http-fixture.ts';
import { parseMcpConfig } from './parse-config.ts';
import { mcpToolName } from './tool-names.ts';

const bridge = bridgesClosedAfterEach();

async function stats(b: Bridge) {
  const result = await b.call('files__stats');
  return result.output as { calls: number; cancelled: number };
}

/** The server's count of cancelled requests, once the cancellation notice has arrived (at most 30 s). */
async function cancelledAtServer(b: Bridge): Promise<number> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { cancelled } = await stats(b);
    if (cancelled > 0 || Date.now() > deadline) return cancelled;
    await Bun.sleep(10);
  }
}

describe('mcp extension: registration', () => {
  let b: Bridge;
  beforeAll(async () => {
    b = await startBridge({ servers: [stdioServer('files')] });
  });
  afterAll(() => b.close());

  test('every MCP tool is registered as server__tool with source mcp; description and schema unchanged', () => {
    const echo = b.registry.get('files__echo')!.item;
    expect(echo).toEqual({
      name: 'files__echo',
      description: 'Echoes the text back.',
      parameters: echoSchema as never,
      source: { type: 'mcp', name: 'files', mcp: { extensionName: 'mcp', serverName: 'files' } },
    });
    expect(b.bridge.toolNames('files')).toContain('files__change_tools');
  });

  test('names are made provider-safe: dots become _, __ in the tool part collapses, cut to 64 characters', () => {
    const names = b.registry.list().map((tool) => tool.item.name);
    expect(names).toContain('files__files_read');
    expect(names).toContain('files__a_b');
    const long = `files__${longToolName}`.slice(0, 64);
    expect(long).toHaveLength(64);
    expect(names).toContain(long);
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  });

  test('two MCP tools mapping to one name: the first keeps it, the second is skipped and reported naming both', async () => {
    const errors = b.logs.filter((line) => line.level === 'error').map((line) => line.text);
    expect(errors).toEqual([
      "MCP tools 'files.read' and 'files_read' of server 'files' both map to the tool name 'files__files_read'; 'files_read' is skipped (rename one of them on the server).",
    ]);
    expect(await b.call('files__files_read', { path: 'a.txt' })).toEqual({ status: 'ok', output: 'contents of a.txt' });
  });

  test('call round trip through the executor, with argument validation before the server', async () => {
    expect(await b.call('files__echo', { text: 'hello' })).toEqual({ status: 'ok', output: 'hello' });
    const before = await stats(b);
    const invalid = await b.call('files__echo', { text: 1 });
    expect(invalid.error?.code).toBe('E_TOOL_INVALID_ARGS');
    expect((await stats(b)).calls).toBe(before.calls + 1); // only the stats call reached the server
  });

  test('a JSON Schema 2020-12 $schema declaration is left out; the schema still validates', async () => {
    expect(b.registry.get('files__dialect')!.item.parameters).toEqual({
      type: 'object',
      properties: { n: { type: 'integer' } },
      required: ['n'],
    });
    expect(await b.call('files__dialect', { n: 3 })).toEqual({ status: 'ok', output: 'n=3' });
    expect((await b.call('files__dialect', { n: 'x' })).error?.code).toBe('E_TOOL_INVALID_ARGS');
  });

  test('results: isError or a JSON-RPC error → E_MCP_TOOL_ERROR; structuredContent; JSON text parsed; several items kept', async () => {
    expect(await b.call('files__fail')).toMatchObject({
      status: 'error',
      error: { code: 'E_MCP_TOOL_ERROR', message: 'disk on fire', helpUrl: 'docs/errors/E_MCP_TOOL_ERROR.md' },
    });
    expect((await b.call('files__protocol_error')).error).toMatchObject({
      code: 'E_MCP_TOOL_ERROR',
      message: "tools/call 'protocol_error' on MCP server 'files' failed: bad things (JSON-RPC -32602)",
    });
    expect(await b.call('files__structured')).toEqual({ status: 'ok', output: { answer: 42, unit: 'none' } });
    expect(await b.call('files__json')).toEqual({ status: 'ok', output: { a: 1, list: [1, 2] } });
    expect(await b.call('files__multi')).toEqual({
      status: 'ok',
      output: [
        { type: 'text', text: 'one' },
        { type: 'text', text: 'two' },
      ],
    });
  });
});

describe('mcp extension: time limits and cancellation', () => {
  test('a call over timeoutMs is E_TOOL_TIMEOUT, and the server is told to cancel it', async () => {
    const b = await bridge({ servers: [stdioServer('files', { timeoutMs: 200 })] });
    const started = performance.now();
    const result = await b.call('files__slow', { ms: 10_000 });
    expect(result.error?.code).toBe('E_TOOL_TIMEOUT');
    // Far less than the 10 s the call asked for: the timeout cut it short.
    expect(performance.now() - started).toBeLessThan(8_000);
    expect(await cancelledAtServer(b)).toBe(1);
  });

  test('cancelling the turn cancels the call at the server (E_TOOL_ABORTED)', async () => {
    const b = await bridge({ servers: [stdioServer('files')] });
    const controller = new AbortController();
    setTimeout(() => controller.abort('user pressed Ctrl-C'), 100);
    const result = await b.call('files__slow', { ms: 10_000 }, controller.signal);
    expect(result.error?.code).toBe('E_TOOL_ABORTED');
    expect(await cancelledAtServer(b)).toBe(1);
  });
});

describe('mcp extension: changes, failures and reconnection', () => {
  test('notifications/tools/list_changed: removed tools are unregistered, new ones registered', async () => {
    const b = await bridge({ servers: [stdioServer('files')] });
    const before = b.registry.version;
    expect(await b.call('files__change_tools', { add: ['late.tool'], remove: ['echo'] })).toMatchObject({
      status: 'ok',
    });
    await waitFor(() => b.registry.has('files__late_tool') && !b.registry.has('files__echo'), 30_000, 'list_changed');
    expect(b.registry.version).toBeGreaterThan(before);
    expect(await b.call('files__late_tool')).toEqual({ status: 'ok', output: 'dynamic late.tool' });
    // A removed tool is gone from the registry, so the guard answers before anything reaches the server.
    expect((await b.call('files__echo', { text: 'x' })).error?.code).toBe('E_TOOL_NOT_IN_CATALOG');
    // The collision is not reported again on refresh.
    expect(b.logs.filter((line) => line.level === 'error')).toHaveLength(1);
  });

  test('a killed server process is reconnected (new process, tools re-listed) and the next call works', async () => {
    const b = await bridge({ servers: [stdioServer('files')] }, { retryDelayMs: 10_000 });
    const first = (await b.call('files__whoami')).output as { pid: number };
    process.kill(first.pid, 'SIGKILL');
    const connection = b.bridge.connections.get('files')!;
    await waitFor(() => !connection.connected, 30_000, 'the drop to be noticed');
    expect(b.logs.some((line) => line.level === 'warn' && line.text.includes('signal SIGKILL'))).toBe(true);
    // The background retry waits 10 s here: the call itself reconnects.
    expect(await b.call('files__echo', { text: 'again' })).toEqual({ status: 'ok', output: 'again' });
    const second = (await b.call('files__whoami')).output as { pid: number };
    expect(second.pid).not.toBe(first.pid);
    expect(isAlive(first.pid)).toBe(false);
  });

  test('a background retry reconnects without any call', async () => {
    const b = await bridge({ servers: [stdioServer('files')] }, { retryDelayMs: 20 });
    const first = (await b.call('files__whoami')).output as { pid: number };
    const connection = b.bridge.connections.get('files')!;
    process.kill(first.pid, 'SIGKILL');
    await waitFor(() => !connection.connected, 30_000, 'the drop');
    await waitFor(() => connection.connected && connection.pid !== first.pid, 30_000, 'the background reconnect');
  });

  test('the server dying during a call is E_MCP_UNAVAILABLE naming the server and how it ended', async () => {
    const b = await bridge({ servers: [stdioServer('files')] }, { retryDelayMs: 10_000 });
    const { pid } = (await b.call('files__whoami')).output as { pid: number };
    setTimeout(() => process.kill(pid, 'SIGKILL'), 100);
    const result = await b.call('files__slow', { ms: 10_000 });
    expect(result.error?.code).toBe('E_MCP_UNAVAILABLE');
    expect(result.error?.message).toContain("MCP server 'files'");
    expect(result.error?.message).toContain('signal SIGKILL');
  });

  test('a server that fails to start is logged with its stderr; the others still register', async () => {
    const b = await bridge({
      servers: [stdioServer('files'), stdioServer('broken', { args: [fixtureServer, '--fail-on-start'] })],
    });
    expect(b.registry.has('files__echo')).toBe(true);
    expect(b.bridge.toolNames('broken')).toEqual([]);
    const error = b.logs.find((line) => line.level === 'error' && line.text.includes("'broken'"));
    expect(error?.text).toContain("MCP server 'broken' could not be reached");
    expect(error?.text).toContain('refusing to start');
  });

  test('a server that closes its stdin and dies as it starts is logged with its exit and stderr, not the broken pipe', async () => {
    // Our first write meets the closed pipe while the process still runs: the message waits for how it ended.
    const script = 'exec 0<&-; echo "no config file at ./mcp.json" >&2; sleep 0.3; exit 4';
    const b = await bridge({ servers: [{ name: 'closing', command: 'sh', args: ['-c', script] }] });
    expect(b.bridge.toolNames('closing')).toEqual([]);
    const error = b.logs.find((line) => line.level === 'error' && line.text.includes("'closing'"));
    expect(error?.text).toContain("MCP server 'closing' could not be reached: the server process ended (exit code 4)");
    expect(error?.text).toContain('no config file at ./mcp.json');
  });

  test('a required server that fails stops the start', async () => {
    const args = [fixtureServer, '--fail-on-start'];
    await expect(startBridge({ servers: [stdioServer('broken', { args, required: true })] })).rejects.toThrow(
      "required MCP server unavailable: MCP server 'broken'",
    );
  });

  test('closing leaves no process behind: the server and what it started are killed', async () => {
    const b = await startBridge({ servers: [stdioServer('files')] });
    const { pid, childPid } = (await b.call('files__spawn_child')).output as { pid: number; childPid: number };
    expect(isAlive(pid) && isAlive(childPid)).toBe(true);
    await b.close();
    await waitFor(() => !isAlive(pid) && !isAlive(childPid), 20_000, 'both processes to end');
  });

  test('servers get a scrubbed environment plus their env, and cwd relative to the current directory', async () => {
    process.env.OPENAI_API_KEY = 'sk-should-not-leak';
    try {
      const b = await bridge({
        servers: [stdioServer('files', { env: { FIXTURE_VALUE: 'from config' }, cwd: 'packages' })],
      });
      expect((await b.call('files__whoami')).output).toMatchObject({
        fixtureValue: 'from config',
        hasOpenAiKey: false,
        cwd: `${process.cwd()}/packages`,
      });
    } finally {
      delete process.env.OPENAI_API_KEY;
    }
  });
});

describe('mcp extension: streamable HTTP', () => {
  test('a server on 127.0.0.1 (port 0): tools, calls, list_changed; unreachable → E_MCP_UNAVAILABLE', async () => {
    const server = startHttpFixture();
    try {
      const b = await bridge(
        { servers: [{ name: 'remote', url: server.url, timeoutMs: 2000 }] },
        { retryDelayMs: 10_000 },
      );
      expect(b.registry.get('remote__echo')!.item.source).toEqual({
        type: 'mcp',
        name: 'remote',
        mcp: { extensionName: 'mcp', serverName: 'remote' },
      });
      expect(await b.call('remote__echo', { text: 'over http' })).toEqual({ status: 'ok', output: 'over http' });
      expect(await b.call('remote__structured')).toEqual({ status: 'ok', output: { answer: 42, unit: 'none' } });
      await b.call('remote__change_tools', { add: ['web'] });
      await waitFor(() => b.registry.has('remote__web'), 30_000, 'list_changed over HTTP');
      await server.stop();
      const result = await b.call('remote__echo', { text: 'anyone?' });
      expect(result.error?.code).toBe('E_MCP_UNAVAILABLE');
      expect(result.error?.message).toContain(server.url);
    } finally {
      await server.stop();
    }
  });

  test('a restarted HTTP server (our session unknown to it) is reconnected and the call sent again', async () => {
    const first = startHttpFixture();
    const b = await bridge({ servers: [{ name: 'remote', url: first.url }] }, { retryDelayMs: 10_000 });
    expect(await b.call('remote__echo', { text: 'one' })).toEqual({ status: 'ok', output: 'one' });
    await first.stop();
    const second = startHttpFixture(first.port);
    try {
      expect(await b.call('remote__echo', { text: 'two' })).toEqual({ status: 'ok', output: 'two' });
      expect(second.sessions.size).toBe(1);
      expect(b.logs.some((line) => line.text.includes('no longer knows the HTTP session'))).toBe(true);
    } finally {
      await b.close();
      await second.stop();
    }
  });
});

describe('mcp extension: through an agent instance (Extension/mcp of @goondan/base)', () => {
  test('the Agent config lists the servers; the model sees and calls the MCP tools; close ends the server', async () => {
    const bundle = await makeBundle({
      'goondan.yaml': [
        'apiVersion: goondan.ai/v1',
        'kind: Model',
        'metadata: { name: script }',
        'spec: { provider: scripted, model: fixture }',
        '---',
        'apiVersion: goondan.ai/v1',
        'kind: Agent',
        'metadata: { name: helper }',
        'spec:',
        '  modelConfig: { modelRef: Model/script }',
        '  extensions:',
        '    - ref: Extension/mcp',
        `      config: { servers: [${JSON.stringify(stdioServer('files'))}] }`,
        '',
      ].join('\n'),
    });
    try {
      const { instance, model } = await openAgent(bundle, 'helper', [
        { toolCalls: [{ name: 'files__echo', args: { text: 'from the model' } }] },
        { toolCalls: [{ name: 'files__whoami', args: {} }] },
        { text: 'done' },
      ]);
      const turn = await instance.enqueue(userEvent('echo please'));
      expect(turn.status).toBe('completed');
      expect(model.calls[0]!.toolNames).toContain('files__echo');
      const [echo, whoami] = toolResults(instance.conversation());
      expect(echo).toEqual({ status: 'ok', output: 'from the model' });
      const { pid } = whoami!.output as { pid: number };
      await instance.close();
      await waitFor(() => !isAlive(pid), 30_000, 'the server to end with the instance');
    } finally {
      await bundle.cleanup();
    }
  });
});

describe('config and names', () => {
  test('mcpToolName', () => {
    expect(mcpToolName('files', 'read.file')).toBe('files__read_file');
    expect(mcpToolName('files', 'a__b___c')).toBe('files__a_b_c');
    expect(mcpToolName('files', 'über/ß')).toBe('files___ber_');
    expect(mcpToolName('files', '...')).toBe('files___');
    expect(mcpToolName('s', 'y'.repeat(100))).toHaveLength(64);
  });

  test('parseMcpConfig explains each mistake', () => {
    const error = (config: object) => {
      try {
        parseMcpConfig(config as never);
        return 'no error';
      } catch (thrown) {
        return (thrown as Error).message;
      }
    };
    expect(error({ servers: {} })).toBe('config.servers must be a list of MCP servers');
    expect(error({ servers: [{ name: 'Files', command: 'x' }] })).toContain(
      "config.servers[0].name 'Files' may contain only",
    );
    expect(error({ servers: [{ name: 'a__b', command: 'x' }] })).toContain('"__"');
    expect(error({ servers: [{ name: 'a', command: 'x', url: 'http://h' }] })).toContain('exactly one of command');
    expect(
      error({
        servers: [
          { name: 'a', command: 'x' },
          { name: 'a', url: 'http://h' },
        ],
      }),
    ).toContain('unique');
    expect(error({ servers: [{ name: 'a', url: 'ftp://h' }] })).toContain('http:// or https://');
    expect(error({ servers: [{ name: 'a', command: 'x', timeoutMs: 0 }] })).toContain('timeoutMs must be an integer');
    expect(error({ servers: [{ name: 'a', command: 'x', comand: 'y' }] })).toContain("unknown field 'comand'");
    expect(
      error({ servers: [{ name: 'a', command: 'x', env: { K: { valueFrom: { env: 'GDN_NOPE_UNSET' } } } }] }),
    ).toBe('Environment variable GDN_NOPE_UNSET is not set (for config.servers[0].env.K)');
    // A misspelt command is said to be one, not a server without command or url.
    expect(error({ servers: [{ name: 'a', comand: 'npx' }] })).toStartWith(
      "config.servers[0] has unknown field 'comand'; did you mean 'command'?",
    );
    // An Authorization header whose variable is unset: the message survives the redaction of what is shown.
    const header = error({
      servers: [{ name: 'a', url: 'http://h', headers: { Authorization: { valueFrom: { env: 'GDN_NOPE_UNSET' } } } }],
    });
    expect(redactSecrets(header)).toBe(
      'Environment variable GDN_NOPE_UNSET is not set (for config.servers[0].headers.Authorization)',
    );
    expect(
      parseMcpConfig({ servers: [{ name: 'a', command: 'x', env: { K: { valueFrom: { env: 'HOME' } } } }] })[0],
    ).toMatchObject({
      transport: 'stdio',
      env: { K: process.env.HOME },
      timeoutMs: 30_000,
      required: false,
    });
  });
});
