import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { agentBundle, cleanupTempDirs, cliEnv, gdn, gdnJson, mainTs, startGdn } from './helpers.ts';

let bundle: string;
beforeAll(async () => {
  bundle = await agentBundle();
});
afterAll(cleanupTempDirs);

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** `gdn mcp serve --http 0 ARGS`, with its URL once it listens. */
async function serveHttp(args: string[] = []) {
  const server = startGdn(['mcp', 'serve', '--bundle', bundle, '--http', '0', ...args]);
  await server.waitForStderr('/mcp (', 20_000);
  const url = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(server.stderr)![1]!;
  return { server, url };
}

describe('gdn mcp serve --http: Origin and body size', () => {
  test('a request whose Origin is not loopback is refused with 403 and a JSON-RPC error; loopback and --allow-origin pass', async () => {
    const { server, url } = await serveHttp(['--allow-origin', 'https://app.example.com']);
    try {
      const evil = await fetch(url, {
        method: 'POST',
        headers: { ...mcpHeaders, origin: 'http://evil.example' },
        body: initialize,
      });
      expect(evil.status).toBe(403);
      const body = (await evil.json()) as { jsonrpc: string; error: { code: number; message: string } };
      expect(body.jsonrpc).toBe('2.0');
      expect(body.error.message).toContain("Origin 'http://evil.example' is not allowed");
      // A rebinding page at a loopback address but through a name of its own is refused too.
      const rebound = await fetch(url, {
        method: 'POST',
        headers: { ...mcpHeaders, origin: `http://attacker.example:${new URL(url).port}` },
        body: initialize,
      });
      expect(rebound.status).toBe(403);
      for (const origin of [
        `http://localhost:${new URL(url).port}`,
        'http://127.0.0.1:6274',
        'https://app.example.com',
      ]) {
        const allowed = await fetch(url, { method: 'POST', headers: { ...mcpHeaders, origin }, body: initialize });
        expect(allowed.status).toBe(200);
        await allowed.body?.cancel();
      }
      const noOrigin = await fetch(url, { method: 'POST', headers: mcpHeaders, body: initialize });
      expect(noOrigin.status).toBe(200);
      await noOrigin.body?.cancel();
    } finally {
      server.proc.kill('SIGTERM');
    }
    expect((await server.finish()).exitCode).toBe(0);
  });

  test('a body over the limit is 413 with a JSON-RPC error; the server goes on serving', async () => {
    const { server, url } = await serveHttp();
    try {
      const big = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { pad: 'x'.repeat(5 * 1024 * 1024) },
      });
      const refused = await fetch(url, { method: 'POST', headers: mcpHeaders, body: big });
      expect(refused.status).toBe(413);
      const body = (await refused.json()) as { error: { message: string } };
      expect(body.error.message).toContain('4194304 bytes');
      // Without a Content-Length (chunked), the same.
      const chunked = await fetch(url, {
        method: 'POST',
        headers: mcpHeaders,
        body: new Blob([big]).stream(),
      });
      expect(chunked.status).toBe(413);
      await chunked.body?.cancel();
      const client = new Client({ name: 'test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await client.close();
    } finally {
      server.proc.kill('SIGTERM');
    }
    expect((await server.finish()).exitCode).toBe(0);
  });
});

describe('gdn mcp serve --http: what is not JSON-RPC', () => {
  test('is answered 400 with the code JSON-RPC gives it and the request id, as over stdio; serving goes on', async () => {
    const { server, url } = await serveHttp();
    try {
      const init = await fetch(url, { method: 'POST', headers: mcpHeaders, body: initialize });
      await init.text();
      const session = {
        ...mcpHeaders,
        'mcp-session-id': init.headers.get('mcp-session-id')!,
        'mcp-protocol-version': '2025-06-18',
      };
      const post = async (body: string) => {
        const response = await fetch(url, { method: 'POST', headers: session, body });
        return { status: response.status, body: await response.text() };
      };
      // The SDK answered each of these -32700 Parse error with id null, though each is JSON.
      const cases: Array<[string, object]> = [
        ['{"jsonrpc":"1.0","id":9,"method":"ping"}', { id: 9, error: { code: -32600 } }],
        ['{"jsonrpc":"2.0","id":8,"method":"tools/call","params":"str"}', { id: 8, error: { code: -32602 } }],
        ['{"jsonrpc":"2.0","id":7,"method":"ping","params":{"_meta":5}}', { id: 7, error: { code: -32602 } }],
        ['{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"cursor":5}}', { id: 6, error: { code: -32602 } }],
        ['"a string"', { id: null, error: { code: -32600 } }],
        ['[]', [{ id: null, error: { code: -32600, message: 'Invalid Request: an empty batch' } }]],
        ['{"jsonrpc":"2.0",', { id: null, error: { code: -32700 } }],
      ];
      for (const [body, expected] of cases) {
        const answer = await post(body);
        expect(answer.status).toBe(400);
        expect(JSON.parse(answer.body)).toMatchObject(expected);
      }
      const ping = await post('{"jsonrpc":"2.0","id":10,"method":"ping"}');
      expect(ping.status).toBe(200);
      expect(ping.body).toContain('"id":10');
    } finally {
      server.proc.kill('SIGTERM');
    }
    expect((await server.finish()).exitCode).toBe(0);
    expect(server.stderr).toContain('gdn mcp serve: a POST was refused: Invalid Request: jsonrpc is "1.0"');
  });
});

describe('gdn mcp serve --http: the lifecycle, as over stdio', () => {
  test('a request without a session is -32000 Server not initialized; a second initialize in a session is -32600', async () => {
    const { server, url } = await serveHttp();
    try {
      const early = await fetch(url, {
        method: 'POST',
        headers: mcpHeaders,
        body: '{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
      });
      expect(early.status).toBe(400);
      expect(await early.json()).toMatchObject({
        error: { code: -32000, message: 'Bad Request: Server not initialized' },
      });
      const init = await fetch(url, { method: 'POST', headers: mcpHeaders, body: initialize });
      await init.text();
      const session = {
        ...mcpHeaders,
        'mcp-session-id': init.headers.get('mcp-session-id')!,
        'mcp-protocol-version': '2025-06-18',
      };
      const again = await fetch(url, { method: 'POST', headers: session, body: initialize });
      expect(again.status).toBe(400);
      expect(await again.json()).toMatchObject({
        error: { code: -32600, message: 'Invalid Request: Server already initialized' },
      });
      const listed = await fetch(url, {
        method: 'POST',
        headers: session,
        body: '{"jsonrpc":"2.0","id":3,"method":"tools/list"}',
      });
      expect(listed.status).toBe(200);
      expect(await listed.text()).toContain('"tools":[');
    } finally {
      server.proc.kill('SIGTERM');
    }
    expect((await server.finish()).exitCode).toBe(0);
  });
});

describe('gdn mcp serve --http: a cancelled call', () => {
  test('notifications/cancelled aborts the tool and ends the stream of its POST, with no answer on it', async () => {
    const { server, url } = await serveHttp();
    try {
      const init = await fetch(url, { method: 'POST', headers: mcpHeaders, body: initialize });
      await init.text();
      const session = {
        ...mcpHeaders,
        'mcp-session-id': init.headers.get('mcp-session-id')!,
        'mcp-protocol-version': '2025-06-18',
      };
      const post = (message: object) => fetch(url, { method: 'POST', headers: session, body: JSON.stringify(message) });
      await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).text();
      // Not awaited: the response's headers come with its first event.
      const call = post({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'slow__wait', arguments: { ms: 600_000 } },
      });
      const started = join(bundle, '.goondan', 'workspaces', 'helper', 'default', '.slow-started');
      while (!existsSync(started)) await Bun.sleep(10);
      const cancel = await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } });
      expect(cancel.status).toBe(202);
      // The SDK's transport waits for an answer that never comes (a cancelled request is not answered): the stream
      // stayed open until the session ended. It ends now, without an answer to 7.
      const answered = await call;
      expect(answered.status).toBe(200);
      expect(await answered.text()).not.toContain('"id":7');
      expect((await (await post({ jsonrpc: '2.0', id: 8, method: 'ping' })).text()).includes('"id":8')).toBe(true);
    } finally {
      server.proc.kill('SIGTERM');
    }
    expect((await server.finish()).exitCode).toBe(0);
  });
});

describe('gdn mcp serve: tool annotations from categories', () => {
  test('safe → readOnlyHint; sensitive → not read-only, not destructive; restricted → destructive', async () => {
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [mainTs, 'mcp', 'serve', '--bundle', bundle],
        env: cliEnv(),
        stderr: 'ignore',
      }),
    );
    try {
      const { tools } = await client.listTools();
      const annotations = Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]));
      expect(annotations['file-system__read']).toEqual({ readOnlyHint: true });
      expect(annotations['file-system__write']).toEqual({ readOnlyHint: false, destructiveHint: true });
      expect(annotations['file-system__delete']).toEqual({ readOnlyHint: false, destructiveHint: true });
      expect(annotations.calc__add).toEqual({ readOnlyHint: false, destructiveHint: false });
      expect(annotations.bash__exec).toEqual({ readOnlyHint: false, destructiveHint: true, openWorldHint: true });
    } finally {
      await client.close();
    }
  });
});

/** The stderr of a server the SDK's client started (stderr: 'pipe'), and waits for a line of it, by its data events. */
function stderrOf(transport: StdioClientTransport) {
  let text = '';
  const waiting = new Set<() => void>();
  transport.stderr?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
    for (const check of waiting) check();
  });
  return {
    /** The first whole line (its newline came) that starts with `prefix`, once there is one; the test's timeout bounds it. */
    line(prefix: string): Promise<string> {
      const { promise, resolve } = Promise.withResolvers<string>();
      const check = () => {
        const found = text
          .split('\n')
          .slice(0, -1)
          .find((line) => line.startsWith(prefix));
        if (found === undefined) return;
        waiting.delete(check);
        resolve(found);
      };
      waiting.add(check);
      check();
      return promise;
    },
  };
}

interface ApprovalRow {
  toolName: string;
  status: string;
  decidedBy: string | null;
  reason: string | null;
}

describe('gdn mcp serve: approvals through MCP elicitation', () => {
  async function connect(answer: (message: string) => ElicitResult | Promise<ElicitResult>) {
    const dir = await agentBundle();
    const asked: string[] = [];
    const client = new Client({ name: 'editor', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return answer(request.params.message);
    });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [mainTs, 'mcp', 'serve', '--bundle', dir],
      env: cliEnv(),
      stderr: 'pipe',
    });
    const stderr = stderrOf(transport);
    await client.connect(transport);
    // Every message from the server, to see a question withdrawn (notifications/cancelled).
    const received: Array<{ method?: string; params?: { requestId?: unknown } }> = [];
    const deliver = transport.onmessage!;
    transport.onmessage = (message) => {
      received.push(message as (typeof received)[number]);
      deliver(message);
    };
    return { dir, client, asked, received, stderr };
  }
  /** `gdn mcp serve` for the SDK's client without capabilities (it cannot be asked), with the server's stderr. */
  async function connectPlain() {
    const dir = await agentBundle();
    const client = new Client({ name: 'plain', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [mainTs, 'mcp', 'serve', '--bundle', dir],
      env: cliEnv(),
      stderr: 'pipe',
    });
    const stderr = stderrOf(transport);
    await client.connect(transport);
    return { dir, client, stderr };
  }
  const workspace = (dir: string) => join(dir, '.goondan', 'workspaces', 'helper', 'default');

  test('an ask tool asks the client (elicitation/create); approve runs it; the answer is in the approval store', async () => {
    const { dir, client, asked, stderr } = await connect(() => ({
      action: 'accept',
      content: { decision: 'approve' },
    }));
    try {
      const result = (await client.callTool({
        name: 'bash__exec',
        arguments: { command: 'echo yes > approved.txt' },
      })) as CallToolResult;
      expect(result.isError).toBeUndefined();
      expect(await stderr.line('approval needed ')).toMatch(
        /^approval needed apr_\S+: bash__exec \([^)]*\); asking the MCP client \(elicitation\/create\); or answer with 'gdn approvals approve apr_/,
      );
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain('bash__exec');
      expect(asked[0]).toContain('echo yes > approved.txt');
      expect(await readFile(join(workspace(dir), 'approved.txt'), 'utf8')).toBe('yes\n');
    } finally {
      await client.close();
    }
    const { json } = await gdnJson<ApprovalRow[]>(['approvals', 'list', '--all', '--json', '--bundle', dir]);
    expect(json.map((row) => [row.toolName, row.status, row.decidedBy])).toEqual([
      ['bash__exec', 'approved', 'mcp-client:editor'],
    ]);
  });

  test('deny with a reason is E_APPROVAL_DENIED; declining the form denies too', async () => {
    let reply: ElicitResult = { action: 'accept', content: { decision: 'deny', reason: 'not today' } };
    const { dir, client } = await connect(() => reply);
    try {
      const denied = (await client.callTool({
        name: 'bash__exec',
        arguments: { command: 'echo no > denied.txt' },
      })) as CallToolResult;
      expect(denied.isError).toBe(true);
      const text = (denied.content[0] as { text: string }).text;
      expect(text).toStartWith('E_APPROVAL_DENIED: ');
      expect(text).toContain('not today');
      reply = { action: 'decline' };
      const declined = (await client.callTool({
        name: 'bash__exec',
        arguments: { command: 'echo no > declined.txt' },
      })) as CallToolResult;
      expect((declined.content[0] as { text: string }).text).toStartWith('E_APPROVAL_DENIED: ');
      expect(existsSync(join(workspace(dir), 'denied.txt'))).toBe(false);
      expect(existsSync(join(workspace(dir), 'declined.txt'))).toBe(false);
    } finally {
      await client.close();
    }
    const { json } = await gdnJson<ApprovalRow[]>(['approvals', 'list', '--all', '--json', '--bundle', dir]);
    expect(json.map((row) => [row.status, row.reason])).toEqual([
      ['denied', 'not today'],
      ['denied', 'declined in the MCP client'],
    ]);
  });

  test('a client that cannot be asked but follows progress is told the call waits for approval, and how to answer', async () => {
    const { dir, client, stderr } = await connectPlain();
    try {
      const told = Promise.withResolvers<string>();
      const call = client.callTool({ name: 'bash__exec', arguments: { command: 'echo told > told.txt' } }, undefined, {
        onprogress: (progress) => told.resolve(progress.message ?? ''),
        timeout: 120_000,
      });
      // It used to be told nothing: a call that does not end, until the client's own timeout.
      const message = await told.promise;
      const id = /waiting for approval (apr_\S+): bash__exec/.exec(message)?.[1];
      expect(message).toContain(`answer with 'gdn approvals approve ${id}'`);
      // The stderr line said "asked the MCP client" here too, though the client was only told.
      const line = await stderr.line(`approval needed ${id}`);
      expect(line).toContain(
        'the MCP client cannot be asked (it declares no form elicitation), so it is told in a progress notification; ',
      );
      expect(line).not.toContain('asking the MCP client');
      expect((await gdn(['approvals', 'approve', id!, '--bundle', dir])).exitCode).toBe(0);
      expect(((await call) as CallToolResult).isError).toBeUndefined();
      expect(await readFile(join(workspace(dir), 'told.txt'), 'utf8')).toBe('told\n');
    } finally {
      await client.close();
    }
  });

  test('a client that can neither be asked nor told (no progressToken): the stderr line says so; gdn approvals answers', async () => {
    const { dir, client, stderr } = await connectPlain();
    try {
      const call = client.callTool(
        { name: 'bash__exec', arguments: { command: 'echo alone > alone.txt' } },
        undefined,
        {
          timeout: 120_000,
        },
      );
      const line = await stderr.line('approval needed ');
      const id = /^approval needed (apr_[^:]+):/.exec(line)?.[1];
      expect(line).toContain(
        `the MCP client was not asked (it declares no form elicitation) nor told (the call has no progressToken); answer with 'gdn approvals approve ${id}'`,
      );
      expect((await gdn(['approvals', 'approve', id!, '--bundle', dir])).exitCode).toBe(0);
      expect(((await call) as CallToolResult).isError).toBeUndefined();
      expect(await readFile(join(workspace(dir), 'alone.txt'), 'utf8')).toBe('alone\n');
    } finally {
      await client.close();
    }
  });

  test('gdn approvals still answers while the client is asked; the question is then withdrawn from the client', async () => {
    const { dir, client, asked, received } = await connect(() => new Promise<ElicitResult>(() => {}));
    try {
      const call = client.callTool({ name: 'bash__exec', arguments: { command: 'echo later > later.txt' } });
      let pending: Array<{ id: string }> = [];
      for (const deadline = Date.now() + 30_000; pending.length === 0 && Date.now() < deadline; ) {
        pending = (await gdnJson<Array<{ id: string }>>(['approvals', 'list', '--json', '--bundle', dir])).json;
      }
      expect(pending).toHaveLength(1);
      expect((await gdn(['approvals', 'approve', pending[0]!.id, '--bundle', dir])).exitCode).toBe(0);
      const result = (await call) as CallToolResult;
      expect(result.isError).toBeUndefined();
      expect(asked).toHaveLength(1);
      expect(await readFile(join(workspace(dir), 'later.txt'), 'utf8')).toBe('later\n');
      const question = received.find((message) => message.method === 'elicitation/create') as { id: number };
      expect(
        received.some(
          (message) => message.method === 'notifications/cancelled' && message.params?.requestId === question.id,
        ),
      ).toBe(true);
    } finally {
      await client.close();
    }
  });
});
