import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { gzipSync } from 'node:zlib';
import type { JsonObject } from '@goondan/core';
import { createTestToolContext } from '@goondan/core/testing';
import { blockedAddressReason } from '../../src/is-blocked-address.ts';
import { errorCodeOf } from '../../test/helpers.ts';
import { type AddressPolicy, checkHop, guardedRequest, parseHttpUrl } from './guarded-request.ts';
import { handlers } from './index.ts';

let server: ReturnType<typeof Bun.serve>;
let base: string;
let closedPort: number;

beforeAll(async () => {
  server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      switch (url.pathname) {
        case '/json':
          return Response.json({ hello: 'world', n: 1 });
        case '/text':
          return new Response('plain text', { headers: { 'content-type': 'text/plain; charset=utf-8' } });
        case '/binary':
          return new Response(new Uint8Array([0xff, 0x00, 0xfe]), {
            headers: { 'content-type': 'application/octet-stream' },
          });
        case '/missing':
          return new Response('nope', { status: 404, statusText: 'Not Found' });
        case '/echo':
          return Response.json({
            method: request.method,
            contentType: request.headers.get('content-type'),
            body: await request.text(),
          });
        case '/headers':
          return Response.json({
            host: request.headers.get('host'),
            authorization: request.headers.get('authorization'),
            custom: request.headers.get('x-custom'),
          });
        case '/big':
          return new Response('x'.repeat(2_000_000));
        case '/stream-big':
          return new Response(
            new ReadableStream({
              async pull(controller) {
                controller.enqueue(new TextEncoder().encode('y'.repeat(64 * 1024)));
                await Bun.sleep(1);
              },
            }),
          );
        case '/gzip':
          return new Response(gzipSync(JSON.stringify({ zipped: true })), {
            headers: { 'content-encoding': 'gzip', 'content-type': 'application/json' },
          });
        case '/gzip-bomb':
          return new Response(gzipSync(Buffer.alloc(5_000_000)), { headers: { 'content-encoding': 'gzip' } });
        case '/redirect':
          return new Response(null, {
            status: Number(url.searchParams.get('status') ?? 302),
            headers: { location: url.searchParams.get('to')! },
          });
        case '/loop':
          return new Response(null, { status: 302, headers: { location: '/loop' } });
        case '/slow':
          await Bun.sleep(5_000);
          return new Response('late');
        default:
          return new Response('unknown', { status: 500 });
      }
    },
  });
  base = `http://127.0.0.1:${server.port}`;
  const closed = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('') });
  closedPort = closed.port!;
  await closed.stop(true);
});
afterAll(() => server.stop(true));

const allowed = createTestToolContext({ workdir: '/tmp', config: { allowPrivateNetwork: true } as JsonObject });
const strict = createTestToolContext({ workdir: '/tmp' });
// biome-ignore lint/suspicious/noExplicitAny: results are checked field by field.
type Loose = any;
const get = (ctx = allowed, input: Record<string, unknown>): Promise<Loose> =>
  Promise.resolve(handlers.get!(ctx, input));
const post = (ctx = allowed, input: Record<string, unknown>): Promise<Loose> =>
  Promise.resolve(handlers.post!(ctx, input));

describe('http-fetch__get and post (allowPrivateNetwork: true, loopback server)', () => {
  test('GET parses JSON bodies', async () => {
    const result = await get(allowed, { url: `${base}/json` });
    expect(result).toMatchObject({
      status: 200,
      statusText: 'OK',
      url: `${base}/json`,
      redirects: 0,
      body: { hello: 'world', n: 1 },
      bodyEncoding: 'json',
    });
    expect(result.headers['content-type']).toContain('application/json');
  });

  test('GET returns text, base64 for binary, and error statuses as data', async () => {
    expect(await get(allowed, { url: `${base}/text` })).toMatchObject({
      body: 'plain text',
      bodyEncoding: 'text',
      bytes: 10,
    });
    expect(await get(allowed, { url: `${base}/binary` })).toMatchObject({ body: '/wD+', bodyEncoding: 'base64' });
    expect(await get(allowed, { url: `${base}/missing` })).toMatchObject({
      status: 404,
      statusText: 'Not Found',
      body: 'nope',
    });
  });

  test('gzip bodies are decompressed', async () => {
    expect(await get(allowed, { url: `${base}/gzip` })).toMatchObject({ body: { zipped: true }, bodyEncoding: 'json' });
  });

  test('headers are sent', async () => {
    const result = await get(allowed, { url: `${base}/headers`, headers: { 'X-Custom': 'yes' } });
    expect(result.body.custom).toBe('yes');
  });

  test('POST sends objects as JSON and strings as text', async () => {
    const json = await post(allowed, { url: `${base}/echo`, body: { a: [1, 2] } });
    expect(json.body).toEqual({ method: 'POST', contentType: 'application/json', body: '{"a":[1,2]}' });
    const text = await post(allowed, { url: `${base}/echo`, body: 'hi there' });
    expect(text.body).toEqual({ method: 'POST', contentType: 'text/plain; charset=utf-8', body: 'hi there' });
    const custom = await post(allowed, {
      url: `${base}/echo`,
      body: 'a=1',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(custom.body.contentType).toBe('application/x-www-form-urlencoded');
    const empty = await post(allowed, { url: `${base}/echo` });
    expect(empty.body).toMatchObject({ method: 'POST', body: '' });
  });

  test('redirects are followed; 303 turns POST into GET', async () => {
    const followed = await get(allowed, { url: `${base}/redirect?to=/json` });
    expect(followed).toMatchObject({ status: 200, url: `${base}/json`, redirects: 1, body: { hello: 'world', n: 1 } });
    const seeOther = await post(allowed, { url: `${base}/redirect?status=303&to=/echo`, body: { a: 1 } });
    expect(seeOther.body).toMatchObject({ method: 'GET', body: '' });
    const kept = await post(allowed, { url: `${base}/redirect?status=307&to=/echo`, body: { a: 1 } });
    expect(kept.body).toMatchObject({ method: 'POST', body: '{"a":1}' });
  });

  test('credentials are dropped on a redirect to another origin, kept on the same origin', async () => {
    const other = `http://localhost:${server.port}/headers`;
    const headers = { Authorization: 'Bearer abc' };
    const same = await get(allowed, { url: `${base}/redirect?to=/headers`, headers });
    expect(same.body.authorization).toBe('Bearer abc');
    const cross = await get(allowed, { url: `${base}/redirect?to=${encodeURIComponent(other)}`, headers });
    expect(cross.url).toBe(other);
    expect(cross.body.authorization).toBeNull();
  });

  test('too many redirects is E_HTTP_REQUEST_FAILED', async () => {
    expect(await errorCodeOf(get(allowed, { url: `${base}/loop` }))).toBe('E_HTTP_REQUEST_FAILED');
  });

  test('a body over maxBytes is E_HTTP_RESPONSE_TOO_LARGE (declared, streamed, or decompressed)', async () => {
    expect(await errorCodeOf(get(allowed, { url: `${base}/big`, maxBytes: 1000 }))).toBe('E_HTTP_RESPONSE_TOO_LARGE');
    expect(await errorCodeOf(get(allowed, { url: `${base}/big` }))).toBe('E_HTTP_RESPONSE_TOO_LARGE');
    const streamed = get(allowed, { url: `${base}/stream-big`, maxBytes: 300_000 });
    expect(await errorCodeOf(streamed)).toBe('E_HTTP_RESPONSE_TOO_LARGE');
    const bomb = get(allowed, { url: `${base}/gzip-bomb`, maxBytes: 100_000 });
    expect(await errorCodeOf(bomb)).toBe('E_HTTP_RESPONSE_TOO_LARGE');
  });

  test('a slow server hits the timeout (E_HTTP_REQUEST_FAILED)', async () => {
    const started = performance.now();
    expect(await errorCodeOf(get(allowed, { url: `${base}/slow`, timeoutMs: 200 }))).toBe('E_HTTP_REQUEST_FAILED');
    expect(performance.now() - started).toBeLessThan(4000); // the server would answer after 5 s
  });

  test('aborting ctx.signal stops the request (E_TOOL_ABORTED)', async () => {
    const controller = new AbortController();
    const ctx = createTestToolContext({
      workdir: '/tmp',
      config: { allowPrivateNetwork: true } as JsonObject,
      signal: controller.signal,
    });
    const call = get(ctx, { url: `${base}/slow` });
    setTimeout(() => controller.abort(), 100);
    expect(await errorCodeOf(call)).toBe('E_TOOL_ABORTED');
  });

  test('a refused connection is E_HTTP_REQUEST_FAILED', async () => {
    expect(await errorCodeOf(get(allowed, { url: `http://127.0.0.1:${closedPort}/` }))).toBe('E_HTTP_REQUEST_FAILED');
  });
});

describe('http-fetch address checks (default: private networks refused)', () => {
  test.each([
    'http://127.0.0.1/',
    'http://localhost/',
    'http://[::1]/',
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/',
    'http://0.0.0.0/',
    'http://192.168.0.1/',
    'http://[::ffff:127.0.0.1]/',
    'http://[fe80::1]/',
    'http://2130706433/',
    'http://0x7f.1/',
  ])('%s is E_HTTP_ADDRESS_BLOCKED', async (url) => {
    expect(await errorCodeOf(get(strict, { url }))).toBe('E_HTTP_ADDRESS_BLOCKED');
  });

  test('the loopback test server itself is refused without allowPrivateNetwork', async () => {
    expect(await errorCodeOf(get(strict, { url: `${base}/json` }))).toBe('E_HTTP_ADDRESS_BLOCKED');
    expect(await errorCodeOf(post(strict, { url: `${base}/echo`, body: 'x' }))).toBe('E_HTTP_ADDRESS_BLOCKED');
  });

  test.each(['file:///etc/passwd', 'ftp://example.com/', 'javascript:alert(1)', 'not a url', '/relative'])(
    '%s is E_HTTP_INVALID_URL',
    async (url) => {
      expect(await errorCodeOf(get(strict, { url }))).toBe('E_HTTP_INVALID_URL');
    },
  );
});

describe('checkHop and per-hop re-checking', () => {
  // Only 127.0.0.1 (the test server) counts as allowed; every other non-public address is refused as usual.
  const onlyTestServer = (overrides: Partial<AddressPolicy> = {}): AddressPolicy => ({
    allowPrivateNetwork: false,
    blockedReason: (address) => (address === '127.0.0.1' ? null : blockedAddressReason(address)),
    ...overrides,
  });
  const limits = { maxBytes: 100_000, timeoutMs: 2_000, signal: new AbortController().signal };

  test('refuses a host when ANY of its addresses is blocked', async () => {
    const policy: AddressPolicy = {
      allowPrivateNetwork: false,
      resolveHost: async () => [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.5', family: 4 },
      ],
    };
    expect(await errorCodeOf(checkHop(parseHttpUrl('http://mixed.test/'), policy))).toBe('E_HTTP_ADDRESS_BLOCKED');
    const open = await checkHop(parseHttpUrl('http://mixed.test/'), { ...policy, allowPrivateNetwork: true });
    expect(open).toHaveLength(2);
  });

  test('public addresses pass; resolver failures are E_HTTP_REQUEST_FAILED', async () => {
    const publicHost: AddressPolicy = {
      allowPrivateNetwork: false,
      resolveHost: async () => [{ address: '93.184.216.34', family: 4 }],
    };
    expect(await checkHop(parseHttpUrl('https://public.test/'), publicHost)).toEqual([
      { address: '93.184.216.34', family: 4 },
    ]);
    const failing: AddressPolicy = {
      allowPrivateNetwork: false,
      resolveHost: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.test'), { code: 'ENOTFOUND' });
      },
    };
    expect(await errorCodeOf(checkHop(parseHttpUrl('http://nowhere.test/'), failing))).toBe('E_HTTP_REQUEST_FAILED');
  });

  test('a redirect from an allowed address to a blocked one is refused', async () => {
    const request = (to: string) => ({
      method: 'GET' as const,
      url: `${base}/redirect?to=${encodeURIComponent(to)}`,
      headers: {},
    });
    // The first hop is allowed: proven by a redirect that stays on it.
    const fine = await guardedRequest(request('/json'), onlyTestServer(), limits);
    expect(fine.redirects).toBe(1);
    // 127.0.0.2 is loopback too (and would answer on Linux), but it is not the allowed address.
    const loopback = guardedRequest(request(`http://127.0.0.2:${server.port}/json`), onlyTestServer(), limits);
    expect(await errorCodeOf(loopback)).toBe('E_HTTP_ADDRESS_BLOCKED');
    const metadata = guardedRequest(
      request('http://metadata.test/latest'),
      onlyTestServer({ resolveHost: async () => [{ address: '169.254.169.254', family: 4 }] }),
      limits,
    );
    expect(await errorCodeOf(metadata)).toBe('E_HTTP_ADDRESS_BLOCKED');
    const scheme = guardedRequest(request('file:///etc/passwd'), onlyTestServer(), limits);
    expect(await errorCodeOf(scheme)).toBe('E_HTTP_INVALID_URL');
  });

  test('the connection goes to the checked address (pinned), not to a second DNS answer', async () => {
    let calls = 0;
    const policy = onlyTestServer({
      resolveHost: async () => {
        calls += 1;
        return [{ address: '127.0.0.1', family: 4 }];
      },
    });
    const result = await guardedRequest(
      { method: 'GET', url: `http://pinned.test:${server.port}/headers`, headers: {} },
      policy,
      limits,
    );
    expect(result.body).toMatchObject({ host: `pinned.test:${server.port}` });
    expect(calls).toBe(1);
  });
});
