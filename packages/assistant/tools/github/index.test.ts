import { afterAll, describe, expect, test } from 'bun:test';
import { tmpdir } from 'node:os';
import { type JsonObject, type OAuthService, provideOAuthService } from '@goondan/core';
import { createTestToolContext } from '@goondan/core/testing';
import { GITHUB_MAX_BYTES } from '../../src/github/github-client.ts';
import { handlers } from './index.ts';

const TOKEN = 'ghp_testtoken0123456789abcdef';
process.env.GOONDAN_TEST_GITHUB_TOKEN = TOKEN;

const calls: { method: string; path: string; authorization: string | null; body: unknown }[] = [];
const attempts = new Map<string, number>();
let endlessPulled = 0;
const issue = (number: number, extra: object = {}) => ({
  number,
  title: `Issue ${number}`,
  state: 'open',
  user: { login: 'ada' },
  labels: [{ name: 'bug' }],
  comments: 12,
  created_at: '2026-11-01T00:00:00Z',
  updated_at: '2026-11-02T00:00:00Z',
  html_url: `https://github.example/octo/hello/issues/${number}`,
  body: '본문 '.repeat(3000),
  ...extra,
});

// A fake GitHub REST API on 127.0.0.1: enough of issues, pulls and repos, and its rate-limit and error answers.
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(request) {
    const url = new URL(request.url);
    const path = url.pathname;
    const body = request.method === 'POST' ? await request.json() : undefined;
    calls.push({
      method: request.method,
      path: path + url.search,
      authorization: request.headers.get('authorization'),
      body,
    });
    const seen = (attempts.get(path) ?? 0) + 1;
    attempts.set(path, seen);
    const now = Math.floor(Date.now() / 1000);
    if (path === '/repos/octo/limited/issues' && seen === 1) {
      return Response.json(
        { message: 'API rate limit exceeded for user.' },
        { status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now) } },
      );
    }
    if (path === '/repos/octo/exhausted/issues') {
      return Response.json(
        { message: 'API rate limit exceeded for user.' },
        { status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now + 3600) } },
      );
    }
    if (path === '/repos/octo/flaky/issues' && seen === 1) return new Response('bad gateway', { status: 502 });
    if (path === '/repos/octo/portal/issues')
      return new Response('<html><body>Sign in to the proxy</body></html>', {
        headers: { 'content-type': 'text/html' },
      });
    if (path === '/repos/octo/shapeless/issues') return Response.json({ items: [] });
    if (path === '/repos/octo/shapeless/issues/1') return Response.json([issue(1)]);
    if (path === '/repos/octo/endless/issues') {
      const chunk = new TextEncoder().encode(`[${JSON.stringify(issue(1))},`.padEnd(64 * 1024, ' '));
      let sent = 0;
      return new Response(
        new ReadableStream({
          pull(controller) {
            if (sent >= 100 * 1024 * 1024) return controller.close();
            sent += chunk.byteLength;
            endlessPulled = Math.max(endlessPulled, sent);
            controller.enqueue(chunk);
          },
        }),
        { headers: { 'content-type': 'application/json' } },
      );
    }
    if (path === '/repos/octo/secret/issues') return Response.json({ message: 'Bad credentials' }, { status: 401 });
    if (/^\/repos\/octo\/(hello|limited|flaky)\/issues$/.test(path) && request.method === 'GET') {
      return Response.json([issue(1), issue(2, { pull_request: { url: 'x' } })]);
    }
    if (path === '/repos/octo/hello/issues/1') return Response.json(issue(1));
    if (path === '/repos/octo/hello/issues/2')
      return Response.json(issue(2, { pull_request: { url: 'x' }, body: null }));
    if (path === '/repos/octo/hello/pulls/2')
      return Response.json({ head: { ref: 'feature' }, base: { ref: 'trunk' }, merged: false, draft: false });
    if (/^\/repos\/octo\/hello\/issues\/\d+\/comments$/.test(path)) {
      return Response.json([{ user: { login: 'bob' }, created_at: '2026-11-03T00:00:00Z', body: 'LGTM' }]);
    }
    if (path === '/repos/octo/hello/issues' && request.method === 'POST') {
      return Response.json(
        { number: 3, html_url: 'https://github.example/octo/hello/issues/3', title: (body as { title: string }).title },
        { status: 201 },
      );
    }
    if (path === '/repos/octo/hello') return Response.json({ default_branch: 'trunk' });
    if (path === '/repos/octo/hello/pulls' && request.method === 'POST') {
      return Response.json({ number: 4, html_url: 'https://github.example/octo/hello/pull/4' }, { status: 201 });
    }
    return Response.json({ message: 'Not Found' }, { status: 404 });
  },
});
afterAll(() => {
  server.stop(true);
  provideOAuthService(undefined);
});

const baseUrl = `http://127.0.0.1:${server.port}`;
const config: JsonObject = { baseUrl, token: { valueFrom: { env: 'GOONDAN_TEST_GITHUB_TOKEN' } } };
const ctx = (extra: JsonObject = {}) => createTestToolContext({ workdir: tmpdir(), config: { ...config, ...extra } });

async function failure(run: () => Promise<unknown>) {
  try {
    return { code: 'none', message: JSON.stringify(await run()), suggestion: '' };
  } catch (error) {
    return error as { code: string; message: string; suggestion: string };
  }
}

describe('github tools against a fake GitHub API', () => {
  test('list and view issues and pull requests, bounded, with the token from a ValueSource', async () => {
    const listed = await handlers.list_issues(ctx(), { repo: 'octo/hello', labels: ['bug', 'ui'] });
    expect(calls.at(-1)?.path).toBe('/repos/octo/hello/issues?state=open&labels=bug%2Cui&sort=updated&per_page=30');
    expect(calls.at(-1)?.authorization).toContain(TOKEN);
    expect(listed).toMatchObject({
      repo: 'octo/hello',
      issues: [
        { number: 1, labels: ['bug'], pullRequest: false },
        { number: 2, pullRequest: true },
      ],
    });
    const viewed = (await handlers.view(ctx(), { repo: 'octo/hello', number: 1 })) as Record<string, unknown>;
    expect(viewed).toMatchObject({ kind: 'issue', comments: [{ author: 'bob', body: 'LGTM' }], moreComments: 11 });
    expect((viewed.body as string).length).toBeLessThan(4_100);
    expect(await handlers.view(ctx(), { repo: 'octo/hello', number: 2 })).toMatchObject({
      kind: 'pull_request',
      body: '',
      pullRequest: { head: 'feature', base: 'trunk', merged: false },
    });
  });

  test('create an issue, and a pull request onto the default branch', async () => {
    expect(await handlers.create_issue(ctx(), { repo: 'octo/hello', title: '버그: 한글', labels: ['bug'] })).toEqual({
      repo: 'octo/hello',
      number: 3,
      url: 'https://github.example/octo/hello/issues/3',
      title: '버그: 한글',
    });
    expect(calls.at(-1)?.body).toEqual({ title: '버그: 한글', labels: ['bug'] });
    expect(await handlers.create_pr(ctx(), { repo: 'octo/hello', title: 'Feature', head: 'feature' })).toMatchObject({
      number: 4,
      base: 'trunk',
    });
    expect(calls.at(-1)?.body).toMatchObject({ head: 'feature', base: 'trunk' });
  });

  test('a short rate limit (403, x-ratelimit-reset) and a 502 are retried once; a long one is coded with the wait', async () => {
    expect((await handlers.list_issues(ctx(), { repo: 'octo/limited' })) as object).toMatchObject({
      issues: [{ number: 1 }, { number: 2 }],
    });
    expect(attempts.get('/repos/octo/limited/issues')).toBe(2);
    expect((await handlers.list_issues(ctx(), { repo: 'octo/flaky' })) as object).toMatchObject({
      issues: [{ number: 1 }, { number: 2 }],
    });
    expect(attempts.get('/repos/octo/flaky/issues')).toBe(2);
    const exhausted = await failure(() => handlers.list_issues(ctx(), { repo: 'octo/exhausted' }));
    expect(exhausted.code).toBe('E_SERVICE_RATE_LIMITED');
    expect(exhausted.suggestion).toMatch(/try again in 3[56]\d\d s/);
    expect(attempts.get('/repos/octo/exhausted/issues')).toBe(1);
  });

  test('bad credentials, a missing issue, a bad repo name and no token are coded; the token never shows', async () => {
    const refused = await failure(() => handlers.list_issues(ctx(), { repo: 'octo/secret' }));
    expect(refused.code).toBe('E_SERVICE_AUTH');
    expect(refused.suggestion).toContain('GOONDAN_TEST_GITHUB_TOKEN');
    expect(`${refused.message} ${refused.suggestion}`).not.toContain(TOKEN);
    expect((await failure(() => handlers.view(ctx(), { repo: 'octo/hello', number: 9 }))).code).toBe(
      'E_SERVICE_NOT_FOUND',
    );
    expect((await failure(() => handlers.view(ctx(), { repo: 'not a repo', number: 1 }))).code).toBe(
      'E_TOOL_INVALID_ARGS',
    );
    const before = calls.length;
    const none = await failure(() =>
      handlers.view(ctx({ token: { valueFrom: { env: 'GOONDAN_TEST_UNSET' } } }), { repo: 'octo/hello', number: 1 }),
    );
    expect(none.code).toBe('E_VALUE_SOURCE_ENV');
    expect(calls.length).toBe(before);
  });

  test('an HTML page, JSON of another shape and an endless answer are coded, not read whole; the endless one is not asked again', async () => {
    const page = await failure(() => handlers.list_issues(ctx(), { repo: 'octo/portal' }));
    expect([page.code, page.message]).toEqual(['E_SERVICE_RESPONSE_INVALID', expect.stringContaining('Sign in')]);
    const object = await failure(() => handlers.list_issues(ctx(), { repo: 'octo/shapeless' }));
    expect([object.code, object.message]).toEqual(['E_SERVICE_RESPONSE_INVALID', expect.stringContaining('list')]);
    const list = await failure(() => handlers.view(ctx(), { repo: 'octo/shapeless', number: 1 }));
    expect(list.code).toBe('E_SERVICE_RESPONSE_INVALID');
    expect(`${page.message}${object.message}${list.message}`).not.toContain('is not a function');
    const endless = await failure(() => handlers.list_issues(ctx(), { repo: 'octo/endless' }));
    expect(endless.code).toBe('E_SERVICE_RESPONSE_TOO_LARGE');
    // Asked once: a retry would read the same megabytes again (the retry plugin sent it twice more, 5 s in all).
    expect(attempts.get('/repos/octo/endless/issues')).toBe(1);
    // It stops being pulled soon after the limit, not at 100 MB.
    expect(endlessPulled).toBeGreaterThan(GITHUB_MAX_BYTES);
    expect(endlessPulled).toBeLessThan(40 * 1024 * 1024);
  });

  test('with config.oauthAppRef the token comes from the OAuth service; no grant yet answers what the person must do', async () => {
    let answer: Awaited<ReturnType<OAuthService['getAccessToken']>> = {
      status: 'authorization_required',
      authSessionId: 'session-1',
      userCode: 'WDJB-MJHT',
      verificationUri: 'https://github.example/login/device',
      expiresAt: '2026-11-23T20:00:00Z',
      message: 'Open the link and enter the code.',
    };
    const asked: string[] = [];
    provideOAuthService({
      getAccessToken: async (request) => {
        asked.push(String(request.oauthAppRef));
        return answer;
      },
      pendingAuthorizations: async () => [],
    });
    const oauth = ctx({ token: null, oauthAppRef: 'OAuthApp/github' });
    const before = calls.length;
    expect(await handlers.list_issues(oauth, { repo: 'octo/hello' })).toMatchObject({
      status: 'authorization_required',
      userCode: 'WDJB-MJHT',
    });
    expect(calls.length).toBe(before);
    answer = {
      status: 'ready',
      accessToken: 'gho_granted0123456789',
      tokenType: 'bearer',
      expiresAt: null,
      scopes: ['repo'],
    };
    await handlers.list_issues(oauth, { repo: 'octo/hello' });
    expect(calls.at(-1)?.authorization).toContain('gho_granted0123456789');
    expect(asked).toEqual(['OAuthApp/github', 'OAuthApp/github']);
  });
});
