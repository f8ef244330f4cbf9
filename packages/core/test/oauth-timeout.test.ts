import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { createOAuthHost } from '../src/oauth/oauth-host.ts';
import { OAuthStore } from '../src/oauth/oauth-store.ts';
import { resolveOAuthKey } from '../src/oauth/resolve-oauth-key.ts';
import { followAuthorization } from './oauth-authorization-server.ts';
import { freshKey, oauthBundle } from './oauth-fixture.ts';
import { type OAuthTestbed, startOAuthTestbed } from './oauth-testbed.ts';
import { startTokenEndpointProxy, type TokenEndpointProxy } from './token-endpoint-proxy.ts';

const TIMEOUT_MS = 400;
const caller = { agentName: 'assistant', instanceKey: 'default' };
let bed: OAuthTestbed;
let proxy: TokenEndpointProxy;

beforeAll(async () => {
  bed = await startOAuthTestbed('goondan-oauth-timeout-');
  proxy = await startTokenEndpointProxy(bed.server.issuer, 'hang');
});
afterAll(async () => {
  await proxy.close();
  await bed.close();
});

/** The authorizationCode app with its token endpoint behind the proxy (authorization straight at the server). */
function proxiedSpec() {
  const { issuer, ...spec } = bed.appSpec('authorizationCode');
  return { ...spec, issuer, endpoints: { authorization: `${issuer}/auth`, token: `${proxy.origin}/token` } };
}

function openStore(name: string): OAuthStore {
  return new OAuthStore(join(bed.dir, name), resolveOAuthKey({ GOONDAN_OAUTH_KEY: freshKey() }));
}

describe('a token endpoint that accepts and never answers', () => {
  test('a refresh fails with E_OAUTH_SERVER naming the endpoint and the bound; every waiting caller is freed; the next ask refreshes', async () => {
    const store = openStore('refresh.db');
    // Authorized through the real server, then refreshed through the proxy: the grant is the same row.
    await bed.authorize(
      createOAuthHost({ bundle: oauthBundle({ github: bed.appSpec('authorizationCode') }), store }),
      caller,
    );
    const host = createOAuthHost({
      bundle: oauthBundle({ github: proxiedSpec() }),
      store,
      requestTimeoutMs: TIMEOUT_MS,
    });
    proxy.setMode('hang');
    const ask = () => host.getAccessToken({ caller, oauthAppRef: 'OAuthApp/github', minTtlSeconds: 10 ** 6 });
    const started = Date.now();
    const [first, second] = await Promise.all([ask(), ask()]);
    expect(Date.now() - started).toBeLessThan(5_000);
    for (const result of [first, second]) {
      expect(result.status).toBe('error');
      if (result.status !== 'error') continue;
      expect(result.error.code).toBe('E_OAUTH_SERVER');
      expect(result.error.message).toContain(`${proxy.origin}/token`);
      expect(result.error.message).toContain(`within ${TIMEOUT_MS} ms`);
    }
    // No lease or in-process promise is left behind: asking again reaches the server, and once it answers, works.
    const before = proxy.connections();
    const again = await ask();
    expect(again.status).toBe('error');
    expect(proxy.connections()).toBeGreaterThan(before);
    proxy.setMode('forward');
    const ready = await ask();
    expect(ready.status).toBe('ready');
    expect(store.getGrant('OAuthApp/github', 'global')).toBeDefined();
    store.close();
  }, 60_000);

  test('the code exchange of a callback fails with E_OAUTH_SERVER in bounded time and stores nothing', async () => {
    const store = openStore('exchange.db');
    const host = createOAuthHost({
      bundle: oauthBundle({ github: proxiedSpec() }),
      store,
      requestTimeoutMs: TIMEOUT_MS,
    });
    proxy.setMode('hang');
    const pending = await host.getAccessToken({ caller, oauthAppRef: 'OAuthApp/github' });
    if (pending.status !== 'authorization_required') throw new Error(JSON.stringify(pending));
    const callback = await followAuthorization(pending.authorizationUrl!, bed.redirectUri);
    const started = Date.now();
    const failure = await host.completeAuthorization(callback).catch((error) => error);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(failure.code).toBe('E_OAUTH_SERVER');
    expect(failure.message).toContain(`${proxy.origin}/token did not answer within ${TIMEOUT_MS} ms`);
    expect(store.getGrant('OAuthApp/github', 'global')).toBeUndefined();
    store.close();
  }, 60_000);

  test('discovery of an issuer that never answers fails with E_OAUTH_SERVER in bounded time', async () => {
    const store = openStore('discovery.db');
    const spec = { ...bed.appSpec('authorizationCode'), issuer: proxy.origin };
    const host = createOAuthHost({ bundle: oauthBundle({ github: spec }), store, requestTimeoutMs: TIMEOUT_MS });
    proxy.setMode('hang');
    const started = Date.now();
    const result = await host.getAccessToken({ caller, oauthAppRef: 'OAuthApp/github' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result).toMatchObject({ status: 'error', error: { code: 'E_OAUTH_SERVER' } });
    if (result.status === 'error') expect(result.error.message).toContain(`no answer within ${TIMEOUT_MS} ms`);
    store.close();
  }, 60_000);
});
