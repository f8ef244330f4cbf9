import { afterAll, describe, expect, test } from 'bun:test';
import { createServer, type Socket } from 'node:net';
import { boundedFetch, sendsCredentials } from './bounded-fetch.ts';

// A DAV server gone wrong, on 127.0.0.1: an endless answer without a length, a huge declared one, a refusal.
let sent = 0;
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === '/refused') return new Response('no', { status: 401 });
    if (path === '/echo') return new Response(request.headers.get('authorization') ?? '');
    const chunk = new Uint8Array(64 * 1024).fill(120);
    sent = 0;
    return new Response(
      new ReadableStream({
        pull(controller) {
          // 50 MB in all, unless the reader stops first.
          if (sent >= 50_000_000) return controller.close();
          sent += chunk.byteLength;
          controller.enqueue(chunk);
        },
      }),
    );
  },
});
// Bun.serve writes its own Content-Length, so the declared-size case is a raw socket that announces 50 MB.
const sockets: Socket[] = [];
const raw = createServer((socket) => {
  sockets.push(socket);
  socket.write('HTTP/1.1 200 OK\r\nContent-Length: 50000000\r\n\r\nxxxx');
});
await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
const rawPort = (raw.address() as { port: number }).port;
afterAll(() => {
  server.stop(true);
  for (const socket of sockets) socket.destroy();
  raw.close();
});
const base = `http://127.0.0.1:${server.port}`;

async function failure(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error('expected a failure');
}

describe('boundedFetch', () => {
  test('a 50 MB answer without a length is cut off after the limit, not read whole', async () => {
    const bounded = boundedFetch({ server: base, headers: {}, maxBytes: 1_000_000, timeoutMs: 10_000 });
    expect(await failure(bounded.fetch(`${base}/stream`))).toMatchObject({ code: 'E_DAV_RESPONSE_TOO_LARGE' });
    expect(sent).toBeLessThan(10_000_000);
    expect(await failure(bounded.fetch(`http://127.0.0.1:${rawPort}/`))).toMatchObject({
      code: 'E_DAV_RESPONSE_TOO_LARGE',
    });
  });

  test('credentials are added to every request; a 401 is kept as E_DAV_UNAUTHORIZED naming the host only', async () => {
    const bounded = boundedFetch({
      server: base,
      headers: { authorization: 'Basic c2VjcmV0' },
      maxBytes: 1000,
      timeoutMs: 10_000,
    });
    expect(await (await bounded.fetch(`${base}/echo`)).text()).toBe('Basic c2VjcmV0');
    await bounded.fetch(`${base}/refused`);
    const kept = bounded.failure();
    expect(kept).toMatchObject({ code: 'E_DAV_UNAUTHORIZED' });
    expect(kept?.message).toContain(`127.0.0.1:${server.port}`);
    expect(kept?.message).not.toContain('c2VjcmV0');
  });

  test('credentials go to the server host and its domain only, never down from https to http', async () => {
    const bounded = boundedFetch({
      server: base,
      headers: { authorization: 'Basic c2VjcmV0' },
      maxBytes: 1000,
      timeoutMs: 10_000,
    });
    // localhost is not the 127.0.0.1 that was configured: an href or a discovery redirect there gets nothing.
    expect(await (await bounded.fetch(`http://localhost:${server.port}/echo`)).text()).toBe('');
    expect(sendsCredentials('https://caldav.icloud.com/', 'https://p07-caldav.icloud.com/123/')).toBe(true);
    expect(sendsCredentials('https://caldav.icloud.com/', 'http://p07-caldav.icloud.com/123/')).toBe(false);
    expect(sendsCredentials('https://dav.example.com/', 'https://example.com.evil.org/')).toBe(false);
    expect(sendsCredentials('https://example.co.uk/', 'https://other.co.uk/')).toBe(false);
    expect(sendsCredentials('https://dav.example.co.uk/', 'https://cal.example.co.uk/')).toBe(true);
    expect(sendsCredentials('http://127.0.0.1:5232/', 'http://127.0.0.2:5232/')).toBe(false);
  });

  test('a closed port is E_DAV_UNREACHABLE', async () => {
    const closed = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('') });
    const port = closed.port;
    closed.stop(true);
    const bounded = boundedFetch({ server: base, headers: {}, maxBytes: 1000, timeoutMs: 10_000 });
    expect(await failure(bounded.fetch(`http://127.0.0.1:${port}/`))).toMatchObject({ code: 'E_DAV_UNREACHABLE' });
  });
});
