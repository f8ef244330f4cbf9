import { afterAll, describe, expect, test } from 'bun:test';
import { tmpdir } from 'node:os';
import type { JsonObject } from '@goondan/core';
import { createTestToolContext } from '@goondan/core/testing';
import { MAX_ANSWER_BYTES, webSearch } from '../../src/web-search/web-search.ts';
import { handlers } from './index.ts';

const KEY = 'test-search-key-0123456789';
process.env.GOONDAN_TEST_SEARCH_KEY = KEY;

interface Seen {
  method: string;
  path: string;
  headers: Headers;
  body: unknown;
}
const seen: Seen[] = [];
let pulledBytes = 0;

// Another host the search server redirects to: it must never be asked (the key would go with the request).
const elsewhere: Request[] = [];
const otherHost = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  fetch(request) {
    elsewhere.push(request);
    return Response.json({ results: [] });
  },
});

// One fake server speaks all four providers' wire formats; special queries make it misbehave.
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(request) {
    const url = new URL(request.url);
    const body = request.method === 'POST' ? await request.json() : undefined;
    seen.push({ method: request.method, path: url.pathname + url.search, headers: request.headers, body });
    const query = (body as { query?: string } | undefined)?.query ?? url.searchParams.get('q') ?? '';
    if (query === 'unauthorized') return Response.json({ detail: 'Invalid API key' }, { status: 401 });
    if (query === 'slow down') return new Response('too many', { status: 429, headers: { 'retry-after': '30' } });
    if (query === 'moved') return Response.redirect(`http://127.0.0.1:${otherHost.port}/search?stolen=${KEY}`, 307);
    if (query === 'moved here') return new Response(null, { status: 301, headers: { location: '/v2/search' } });
    if (query === 'broken') return new Response('<html>502 Bad Gateway</html>', { status: 200 });
    if (query === 'huge') {
      const chunk = new Uint8Array(64 * 1024).fill(32);
      let sent = 0;
      const stream = new ReadableStream({
        pull(controller) {
          if (sent >= 50 * 1024 * 1024) return controller.close();
          sent += chunk.length;
          pulledBytes = sent;
          controller.enqueue(chunk);
        },
      });
      return new Response(stream, { headers: { 'content-type': 'application/json' } });
    }
    if (url.pathname === '/search' && request.method === 'POST' && request.headers.has('authorization')) {
      return Response.json({
        query,
        results: [
          {
            title: 'Seoul weather',
            url: 'https://weather.example/seoul',
            content: '맑음, 12°C',
            published_date: '2026-11-20',
          },
          { title: 'No date', url: 'https://b.example/', content: 'x'.repeat(2000) },
          { title: 'Not a web link', url: 'javascript:alert(1)', content: 'dropped' },
        ],
      });
    }
    if (url.pathname === '/search' && request.method === 'POST') {
      return Response.json({
        results: [
          {
            title: 'Exa hit',
            url: 'https://exa.example/a',
            highlights: ['first part', 'second part'],
            publishedDate: '2026-01-02T00:00:00.000Z',
          },
        ],
      });
    }
    if (url.pathname === '/res/v1/web/search') {
      return Response.json({
        query: { original: query },
        web: {
          results: [
            {
              title: 'Brave hit',
              url: 'https://brave.example/',
              description: 'a <strong>bold</strong> claim',
              page_age: '2025-12-01T10:00:00',
            },
          ],
        },
      });
    }
    if (url.pathname === '/search' && url.searchParams.get('format') !== 'json')
      return new Response('html', { status: 400 });
    if (url.pathname === '/search' && query === 'no json') return new Response('Forbidden', { status: 403 });
    if (url.pathname === '/search') {
      return Response.json({
        results: [{ title: 'Searx hit', url: 'https://searx.example/', content: 'from searx', publishedDate: null }],
      });
    }
    return new Response('not found', { status: 404 });
  },
});
afterAll(() => {
  server.stop(true);
  otherHost.stop(true);
});

const base = `http://127.0.0.1:${server.port}`;
const search = (config: JsonObject, query: string, count?: number) =>
  handlers.search(createTestToolContext({ workdir: tmpdir(), config }), { query, count });
const withKey = (provider: string): JsonObject => ({
  provider,
  baseUrl: base,
  apiKey: { valueFrom: { env: 'GOONDAN_TEST_SEARCH_KEY' } },
});

async function failure(run: () => Promise<unknown>) {
  try {
    return { code: 'none', message: JSON.stringify(await run()), suggestion: '' };
  } catch (error) {
    return error as { code: string; message: string; suggestion: string };
  }
}

describe('web__search', () => {
  test('Tavily: bearer key, results normalised (title, url, snippet, date) and bounded', async () => {
    const answer = await search(withKey('tavily'), '서울 날씨', 3);
    const request = seen.at(-1);
    expect(request?.headers.get('authorization')).toBe(`Bearer ${KEY}`);
    expect(request?.body).toMatchObject({ query: '서울 날씨', max_results: 3 });
    expect(answer.provider).toBe('tavily');
    expect(answer.results[0]).toEqual({
      title: 'Seoul weather',
      url: 'https://weather.example/seoul',
      snippet: '맑음, 12°C',
      date: '2026-11-20',
    });
    expect(answer.results[1]?.snippet.length).toBe(500);
    expect(answer.results[1]?.date).toBeNull();
    expect(answer.results.map((r) => r.url)).not.toContain('javascript:alert(1)');
  });

  test('Exa, Brave and SearXNG speak their own wire formats into the same shape', async () => {
    const exa = await search(withKey('exa'), 'exa query');
    expect(seen.at(-1)?.headers.get('x-api-key')).toBe(KEY);
    expect(exa.results).toEqual([
      {
        title: 'Exa hit',
        url: 'https://exa.example/a',
        snippet: 'first part … second part',
        date: '2026-01-02T00:00:00.000Z',
      },
    ]);
    const brave = await search(withKey('brave'), 'brave query', 2);
    expect(seen.at(-1)?.path).toBe('/res/v1/web/search?q=brave+query&count=2');
    expect(seen.at(-1)?.headers.get('x-subscription-token')).toBe(KEY);
    expect(brave.results).toEqual([
      { title: 'Brave hit', url: 'https://brave.example/', snippet: 'a bold claim', date: '2025-12-01T10:00:00' },
    ]);
    const searx = await search({ provider: 'searxng', baseUrl: `${base}/` }, 'searx query');
    expect(seen.at(-1)?.path).toBe('/search?q=searx+query&format=json');
    expect(searx.results).toEqual([
      { title: 'Searx hit', url: 'https://searx.example/', snippet: 'from searx', date: null },
    ]);
  });

  test('a refused key, a rate limit and a broken answer are coded, and the key is never in the message', async () => {
    const refused = await failure(() => search(withKey('tavily'), 'unauthorized'));
    expect(refused.code).toBe('E_SERVICE_AUTH');
    expect(refused.suggestion).toContain('env GOONDAN_TEST_SEARCH_KEY');
    expect(`${refused.message}${refused.suggestion}`).not.toContain(KEY);
    const limited = await failure(() => search(withKey('brave'), 'slow down'));
    expect(limited.code).toBe('E_SERVICE_RATE_LIMITED');
    expect(limited.suggestion).toContain('30 s');
    expect((await failure(() => search(withKey('exa'), 'broken'))).code).toBe('E_SERVICE_RESPONSE_INVALID');
    const noJson = await failure(() => search({ provider: 'searxng', baseUrl: base }, 'no json'));
    expect(noJson.code).toBe('E_SERVICE_AUTH');
    expect(noJson.suggestion).toContain('search.formats');
  });

  test('a redirect is not followed and is said as one: where it pointed, and to check the baseUrl', async () => {
    const moved = await failure(() => search(withKey('tavily'), 'moved'));
    expect(moved.code).toBe('E_SERVICE_RESPONSE_INVALID');
    expect(moved.message).toBe(
      `Tavily at ${base} redirected (307) to http://127.0.0.1:${otherHost.port}; redirects are not followed, so the key goes nowhere else.`,
    );
    expect(moved.suggestion).toBe(
      `Check the configured baseUrl of Tavily: if http://127.0.0.1:${otherHost.port} is the service, set the baseUrl to that address; redirects are never followed.`,
    );
    expect(`${moved.message}${moved.suggestion}`).not.toMatch(/UnexpectedRedirect|verbose|network|stolen/);
    expect(`${moved.message}${moved.suggestion}`).not.toContain(KEY);
    expect(elsewhere).toEqual([]);
    const samePlace = await failure(() => search({ provider: 'searxng', baseUrl: base }, 'moved here'));
    expect(samePlace.code).toBe('E_SERVICE_RESPONSE_INVALID');
    expect(samePlace.message).toBe(
      `SearXNG at ${base} redirected (301) to another path on ${base}; redirects are not followed.`,
    );
  });

  test('a 50 MB answer is cut off after the limit without being read whole', async () => {
    const huge = await failure(() => search(withKey('tavily'), 'huge'));
    expect(huge.code).toBe('E_SERVICE_RESPONSE_TOO_LARGE');
    // The stream stops being pulled soon after the limit: socket buffers allow some read-ahead, not 50 MB.
    expect(pulledBytes).toBeGreaterThan(MAX_ANSWER_BYTES);
    expect(pulledBytes).toBeLessThan(25 * 1024 * 1024);
  });

  test('no key, an unknown provider, no SearXNG address and an unreachable server are coded before or without an answer', async () => {
    const before = seen.length;
    const noKey = await failure(() =>
      search({ provider: 'brave', baseUrl: base, apiKey: { valueFrom: { env: 'GOONDAN_TEST_UNSET_KEY' } } }, 'x'),
    );
    expect(noKey.code).toBe('E_VALUE_SOURCE_ENV');
    const envDefault = await failure(() =>
      webSearch({ config: { provider: 'exa', baseUrl: base }, query: 'x', env: {} }),
    );
    expect(envDefault.code).toBe('E_SERVICE_NOT_CONFIGURED');
    expect(envDefault.suggestion).toContain('EXA_API_KEY');
    const fromEnv = await webSearch({
      config: { provider: 'exa', baseUrl: base },
      query: 'x',
      env: { EXA_API_KEY: KEY },
    });
    expect(fromEnv.count).toBe(1);
    expect((await failure(() => search({ provider: 'bing' }, 'x'))).code).toBe('E_SERVICE_NOT_CONFIGURED');
    expect((await failure(() => search({ provider: 'searxng' }, 'x'))).code).toBe('E_SERVICE_NOT_CONFIGURED');
    expect(seen.length - before).toBe(1);
    const closed = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('') });
    const port = closed.port;
    closed.stop(true);
    const unreachable = await failure(() => search({ provider: 'searxng', baseUrl: `http://127.0.0.1:${port}` }, 'x'));
    expect(unreachable.code).toBe('E_SERVICE_UNREACHABLE');
  });
});
