import { afterEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { type Bridge, bridgesClosedAfterEach } from './__fixtures__/harness.ts';
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
