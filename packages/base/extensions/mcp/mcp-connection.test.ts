import { afterEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { type Bridge, bridgesClosedAfterEach, waitFor } from './__fixtures__/harness.ts';
import { startHttpFixture } from './__fixtures__/http-fixture.ts';

const bridge = bridgesClosedAfterEach();
const processes: Bun.Subprocess[] = [];
afterEach(() => {
  for (const proc of processes.splice(0)) proc.kill('SIGKILL');
});

/** The HTTP fixture in a process of its own, so a test can kill it mid-call; resolves with its URL. */
async function httpFixtureProcess(): Promise<{ proc: Bun.Subprocess; url: string }> {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, '__fixtures__', 'http-fixture.ts')], {
    stdout: 'pipe',
    stderr: 'inherit',
  });
  processes.push(proc);
  const decoder = new TextDecoder();
  let out = '';
  for await (const chunk of proc.stdout) {
    out += decoder.decode(chunk, { stream: true });
    const match = /listening (\S+)/.exec(out);
    if (match) return { proc, url: match[1]! };
  }
  throw new Error(`the HTTP fixture ended without listening: ${out}`);
}

async function running(b: Bridge, tool: string): Promise<number> {
  return ((await b.call(tool)).output as { running: number }).running;
}

describe('mcp extension over HTTP: broken connections', () => {
  test('an HTTP server that dies during a call fails the call with E_MCP_UNAVAILABLE at once, not at the timeout', async () => {
    const server = await httpFixtureProcess();
    const b = await bridge(
      { servers: [{ name: 'remote', url: server.url, timeoutMs: 120_000 }] },
      { retryDelayMs: 60_000 },
    );
    const pending = b.call('remote__slow', { ms: 120_000 });
    let inFlight = 0;
    for (const deadline = Date.now() + 10_000; inFlight === 0 && Date.now() < deadline; ) {
      inFlight = await running(b, 'remote__stats');
    }
    expect(inFlight).toBe(1);
    server.proc.kill('SIGKILL');
    const result = await pending;
    expect(result.error?.code).toBe('E_MCP_UNAVAILABLE');
    expect(result.error?.message).toContain(server.url);
    expect(result.error?.message).toContain("during tools/call 'slow'");
  }, 60_000);

  test('a stale session answered with 400 is re-initialised and the call sent once more', async () => {
    const first = startHttpFixture();
    const b = await bridge({ servers: [{ name: 'remote', url: first.url }] }, { retryDelayMs: 60_000 });
    expect(await b.call('remote__echo', { text: 'one' })).toEqual({ status: 'ok', output: 'one' });
    const sessionIds = [...first.sessions.keys()];
    // Servers that keep sessions in a map often answer an unknown id with 400 (the SDK's express examples do).
    first.unknownSessionStatus = 400;
    for (const id of sessionIds) first.sessions.delete(id);
    expect(await b.call('remote__echo', { text: 'two' })).toEqual({ status: 'ok', output: 'two' });
    expect(first.sessions.size).toBe(1);
    expect(b.logs.some((line) => line.text.includes('no longer knows the HTTP session'))).toBe(true);
    await b.close();
    await first.stop();
  });
});

/**
 * A streamable HTTP server written at the wire: initialize and tools/list as JSON; tools/call `sse` answers an event
 * stream whose one event never ends (12 MiB of data, then nothing), `json` a chunked JSON answer of 12 MiB, `echo`
 * its text. The SDK would hold either whole in memory (one without end, until the agent ran out of it).
 */
function endlessAnswerServer() {
  const MiB = 1024 * 1024;
  const seen = { sseCancelled: false };
  const chunks = (first: string, count: number, onCancel?: () => void) => {
    let sent = 0;
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === count) return new Promise<void>(() => {}); // stays open, sending nothing more
        controller.enqueue(new TextEncoder().encode(sent === 0 ? first : 'x'.repeat(MiB)));
        sent += 1;
      },
      cancel: onCancel,
    });
  };
  const http = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 0,
    async fetch(request) {
      if (request.method !== 'POST') return new Response(null, { status: 405 });
      const message = (await request.json()) as { id?: number; method: string; params: Record<string, unknown> };
      const answer = (result: object) => Response.json({ jsonrpc: '2.0', id: message.id, result });
      if (message.id === undefined) return new Response(null, { status: 202 });
      if (message.method === 'initialize') {
        const { protocolVersion } = message.params as { protocolVersion: string };
        return answer({ protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'endless', version: '1' } });
      }
      if (message.method === 'tools/list') {
        const tool = (name: string) => ({ name, inputSchema: { type: 'object' } });
        return answer({ tools: [tool('sse'), tool('json'), tool('echo')] });
      }
      const { name } = message.params as { name: string };
      if (name === 'sse') {
        const body = chunks('event: message\ndata: ', 13, () => {
          seen.sseCancelled = true;
        });
        return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
      }
      if (name === 'json') {
        const body = chunks(`{"jsonrpc":"2.0","id":${message.id},"result":{"content":[{"type":"text","text":"`, 13);
        return new Response(body, { headers: { 'content-type': 'application/json' } });
      }
      return answer({ content: [{ type: 'text', text: 'still here' }] });
    },
  });
  return { url: `http://127.0.0.1:${http.port}/mcp`, seen, stop: () => http.stop(true) };
}

describe('mcp extension over HTTP: answers too large to hold', () => {
  test('an event or a JSON answer over 10 MiB fails its call with E_MCP_TOOL_ERROR and is not read further', async () => {
    const server = endlessAnswerServer();
    try {
      const b = await bridge(
        { servers: [{ name: 'endless', url: server.url, timeoutMs: 120_000 }] },
        { retryDelayMs: 60_000 },
      );
      for (const tool of ['endless__sse', 'endless__json']) {
        const result = await b.call(tool);
        expect(result.error?.code).toBe('E_MCP_TOOL_ERROR');
        expect(result.error?.message).toContain('the answer was more than 10485760 bytes (10 MiB)');
      }
      await waitFor(() => server.seen.sseCancelled, 10_000, 'the event stream to be cancelled');
      expect(await b.call('endless__echo')).toEqual({ status: 'ok', output: 'still here' });
    } finally {
      await server.stop();
    }
  }, 60_000);
});
