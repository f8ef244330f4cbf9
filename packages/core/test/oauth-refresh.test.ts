import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join, resolve } from 'node:path';
import { createOAuthHost } from '../src/oauth/oauth-host.ts';
import { OAuthStore } from '../src/oauth/oauth-store.ts';
import type { OAuthAppResourceSpec } from '../src/oauth/oauth-types.ts';
import { resolveOAuthKey } from '../src/oauth/resolve-oauth-key.ts';
import { freshKey, oauthBundle } from './oauth-fixture.ts';
import { type OAuthTestbed, startOAuthTestbed } from './oauth-testbed.ts';

const CHILDREN = 4;
const child = resolve(import.meta.dir, 'oauth-token-child.ts');
let bed: OAuthTestbed;

beforeAll(async () => {
  bed = await startOAuthTestbed('goondan-oauth-refresh-');
});
afterAll(() => bed.close());

/** Starts a child host, resolves once it printed `ready`; `go()` lets it ask, `result` is what it got. */
async function startChild(env: Record<string, string>) {
  const proc = Bun.spawn([process.execPath, child], { env, stdin: 'pipe', stdout: 'pipe', stderr: 'pipe' });
  const reader = proc.stdout.getReader();
  let out = '';
  while (!out.includes('ready\n')) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`child ended early: ${out}${await new Response(proc.stderr).text()}`);
    out += new TextDecoder().decode(value);
  }
  return {
    go() {
      proc.stdin.write('go\n');
      proc.stdin.end();
    },
    async result() {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        out += new TextDecoder().decode(value);
      }
      await proc.exited;
      const line = out.split('\n').find((text) => text.startsWith('{'));
      if (!line) throw new Error(`child printed no result: ${out}${await new Response(proc.stderr).text()}`);
      return JSON.parse(line) as { status: string; accessToken?: string };
    },
  };
}

describe('refresh near expiry', () => {
  test(`${CHILDREN} processes asking at once for a nearly expired token cause one refresh; all get the new token; the grant survives`, async () => {
    const key = freshKey();
    const apps: Record<string, OAuthAppResourceSpec> = { github: bed.appSpec('authorizationCode') };
    const db = join(bed.dir, 'oauth.db');
    const store = new OAuthStore(db, resolveOAuthKey({ GOONDAN_OAUTH_KEY: key }));
    const host = createOAuthHost({ bundle: oauthBundle(apps), store });
    const caller = { agentName: 'assistant', instanceKey: 'default' };
    await bed.authorize(host, caller);
    // Nearly expired: 5 s left, less than the default minTtlSeconds (60).
    const planted = store.getGrant('OAuthApp/github', 'global')!;
    store.saveGrant({
      app: 'OAuthApp/github',
      subject: 'global',
      tokens: { ...planted.tokens, expiresAt: Date.now() + 5_000 },
      scopes: planted.scopes,
    });
    const refreshesBefore = bed.server.grants.filter((grant) => grant === 'refresh_token').length;

    const env = {
      ...(process.env as Record<string, string>),
      GOONDAN_OAUTH_KEY: key,
      OAUTH_TEST_DB: db,
      OAUTH_TEST_APPS: JSON.stringify(apps),
      OAUTH_TEST_APP: 'OAuthApp/github',
    };
    const children = await Promise.all(Array.from({ length: CHILDREN }, () => startChild(env)));
    for (const started of children) started.go();
    const results = await Promise.all(children.map((started) => started.result()));

    expect(bed.server.grants.filter((grant) => grant === 'refresh_token').length - refreshesBefore).toBe(1);
    expect(bed.server.tokenErrors).not.toContain('invalid_grant');
    expect(results.map((result) => result.status)).toEqual(Array(CHILDREN).fill('ready'));
    const tokens = new Set(results.map((result) => result.accessToken));
    expect(tokens.size).toBe(1);
    expect(tokens.has(planted.tokens.accessToken)).toBe(false);
    const stored = store.getGrant('OAuthApp/github', 'global')!;
    expect(tokens.has(stored.tokens.accessToken)).toBe(true);
    expect(stored.tokens.refreshToken).not.toBe(planted.tokens.refreshToken);

    // The grant survived at the server: the rotated refresh token refreshes again.
    const again = await host.getAccessToken({ caller, oauthAppRef: 'OAuthApp/github', minTtlSeconds: 10 ** 6 });
    expect(again.status).toBe('ready');
    expect(bed.server.tokenErrors).not.toContain('invalid_grant');
    store.close();
  }, 120_000);

  test('two hosts of one process on two stores (two bundles) refreshing the same app at once each get their own token', async () => {
    const apps: Record<string, OAuthAppResourceSpec> = { github: bed.appSpec('authorizationCode') };
    const caller = { agentName: 'assistant', instanceKey: 'default' };
    const tenants = await Promise.all(
      ['tenant-a', 'tenant-b'].map(async (name) => {
        const store = new OAuthStore(join(bed.dir, `${name}.db`), resolveOAuthKey({ GOONDAN_OAUTH_KEY: freshKey() }));
        const host = createOAuthHost({ bundle: oauthBundle(apps), store });
        await bed.authorize(host, caller);
        const planted = store.getGrant('OAuthApp/github', 'global')!;
        store.saveGrant({
          app: 'OAuthApp/github',
          subject: 'global',
          tokens: { ...planted.tokens, expiresAt: Date.now() + 5_000 },
          scopes: planted.scopes,
        });
        return { store, host };
      }),
    );
    const refreshesBefore = bed.server.grants.filter((grant) => grant === 'refresh_token').length;
    const results = await Promise.all(
      tenants.map(({ host }) => host.getAccessToken({ caller, oauthAppRef: 'OAuthApp/github' })),
    );
    expect(bed.server.grants.filter((grant) => grant === 'refresh_token').length - refreshesBefore).toBe(2);
    for (const [index, { store }] of tenants.entries()) {
      const result = results[index]!;
      if (result.status !== 'ready') throw new Error(JSON.stringify(result));
      expect(result.accessToken).toBe(store.getGrant('OAuthApp/github', 'global')!.tokens.accessToken);
      store.close();
    }
    expect(new Set(results.map((result) => (result.status === 'ready' ? result.accessToken : ''))).size).toBe(2);
  }, 60_000);
});
