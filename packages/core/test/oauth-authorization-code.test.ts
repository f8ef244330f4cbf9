import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentEvent } from '../src/agent/agent-event.ts';
import { createOAuthHost, type OAuthHost } from '../src/oauth/oauth-host.ts';
import { OAuthStore } from '../src/oauth/oauth-store.ts';
import type { OAuthTokenResult } from '../src/oauth/oauth-types.ts';
import { resolveOAuthKey } from '../src/oauth/resolve-oauth-key.ts';
import { serveOAuthCallbacks } from '../src/oauth/serve-oauth-callbacks.ts';
import { followAuthorization } from './oauth-authorization-server.ts';
import { freshKey, oauthBundle } from './oauth-fixture.ts';
import { type OAuthTestbed, startOAuthTestbed } from './oauth-testbed.ts';

let bed: OAuthTestbed;
const caller = { agentName: 'assistant', instanceKey: 'default' };

beforeAll(async () => {
  bed = await startOAuthTestbed('goondan-oauth-');
});
afterAll(() => bed.close());

let clock = Date.now();
function openHost(name: string): { host: OAuthHost; events: AgentEvent[]; stop(): Promise<void> } {
  const spec = bed.appSpec('authorizationCode');
  const bundle = oauthBundle({ github: spec, people: { ...spec, subjectMode: 'user' } });
  const store = new OAuthStore(join(bed.dir, `${name}.db`), resolveOAuthKey({ GOONDAN_OAUTH_KEY: freshKey() }));
  const events: AgentEvent[] = [];
  const host = createOAuthHost({ bundle, store, now: () => clock, onGranted: (event) => events.push(event) });
  const callbacks = serveOAuthCallbacks({ bundle, host });
  return {
    host,
    events,
    stop: async () => {
      await callbacks.stop();
      store.close();
    },
  };
}

function required(result: OAuthTokenResult) {
  if (result.status !== 'authorization_required')
    throw new Error(`expected authorization_required: ${JSON.stringify(result)}`);
  return result;
}

/** Every file under `bed.dir`, as text, for the secret grep. */
function everythingWritten(): string {
  return readdirSync(bed.dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name)).toString('latin1'))
    .join('\n');
}

describe('authorization code with PKCE against oidc-provider', () => {
  test('asks for authorization, takes the loopback callback, then serves the token; nothing secret at rest', async () => {
    const { host, events, stop } = openHost('happy');
    const first = required(await host.getAccessToken({ caller, oauthAppRef: 'OAuthApp/github' }));
    const url = new URL(first.authorizationUrl!);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('state')).toBeTruthy();
    const again = required(await host.getAccessToken({ caller, oauthAppRef: 'OAuthApp/github' }));
    expect(again.authSessionId).toBe(first.authSessionId);

    const callback = await followAuthorization(first.authorizationUrl!, bed.redirectUri);
    const page = await fetch(callback);
    expect(page.status).toBe(200);
    const ready = await host.getAccessToken({ caller, oauthAppRef: 'OAuthApp/github', scopes: ['profile'] });
    if (ready.status !== 'ready') throw new Error(JSON.stringify(ready));
    expect(bed.server.grants).toContain('authorization_code');
    expect(events.map((event) => event.type)).toEqual(['auth.granted']);
    expect(events[0]!.data).toEqual({ oauthApp: 'OAuthApp/github', authSessionId: first.authSessionId });

    const refreshToken = host.store.getGrant('OAuthApp/github', 'global')!.tokens.refreshToken!;
    expect(refreshToken).toBeTruthy();
    await stop();
    const written = everythingWritten();
    for (const secret of [ready.accessToken, refreshToken, bed.server.clientSecret, url.searchParams.get('state')!]) {
      expect({ secret, found: written.includes(secret) }).toEqual({ secret, found: false });
    }
    expect(JSON.stringify(events)).not.toContain(ready.accessToken);
  });

  test('a forged callback, a replayed one and an expired session are coded errors that store nothing', async () => {
    const { host, stop } = openHost('bad');
    const pending = required(await host.getAccessToken({ caller, oauthAppRef: 'OAuthApp/github' }));
    const callback = await followAuthorization(pending.authorizationUrl!, bed.redirectUri);
    const forged = new URL(callback);
    forged.searchParams.set('state', 'forged-state-value');
    await expect(host.completeAuthorization(forged.href)).rejects.toMatchObject({ code: 'E_OAUTH_CALLBACK_INVALID' });
    expect((await fetch(forged)).status).toBe(400);
    expect(host.store.getGrant('OAuthApp/github', 'global')).toBeUndefined();

    clock += 11 * 60 * 1000;
    await expect(host.completeAuthorization(callback)).rejects.toMatchObject({ code: 'E_OAUTH_SESSION_EXPIRED' });
    expect(host.store.getGrant('OAuthApp/github', 'global')).toBeUndefined();

    const fresh = required(await host.getAccessToken({ caller, oauthAppRef: 'OAuthApp/github' }));
    expect(fresh.authSessionId).not.toBe(pending.authSessionId);
    const good = await followAuthorization(fresh.authorizationUrl!, bed.redirectUri);
    await host.completeAuthorization(good);
    host.store.deleteGrant('OAuthApp/github', 'global');
    await expect(host.completeAuthorization(good)).rejects.toMatchObject({ code: 'E_OAUTH_CALLBACK_INVALID' });
    expect(host.store.getGrant('OAuthApp/github', 'global')).toBeUndefined();
    await stop();
  });

  test('a code redeemed with another session’s verifier is refused by the server and nothing is stored', async () => {
    const { host, stop } = openHost('verifier');
    const forAda = required(
      await host.getAccessToken({ caller: { ...caller, userId: 'ada' }, oauthAppRef: 'OAuthApp/people' }),
    );
    const forBob = required(
      await host.getAccessToken({ caller: { ...caller, userId: 'bob' }, oauthAppRef: 'OAuthApp/people' }),
    );
    const adaCallback = new URL(await followAuthorization(forAda.authorizationUrl!, bed.redirectUri));
    adaCallback.searchParams.set('state', new URL(forBob.authorizationUrl!).searchParams.get('state')!);
    await expect(host.completeAuthorization(adaCallback.href)).rejects.toMatchObject({
      code: 'E_OAUTH_EXCHANGE_FAILED',
    });
    expect(bed.server.tokenErrors).toContain('invalid_grant');
    expect(host.store.listGrants()).toEqual([]);
    await stop();
  });

  test('a grant revoked at the server is removed and authorization is asked again, with the reason', async () => {
    const { host, stop } = openHost('revoked');
    await bed.authorize(host, caller);
    const { refreshToken } = host.store.getGrant('OAuthApp/github', 'global')!.tokens;
    const revoked = await fetch(`${bed.server.issuer}/token/revocation`, {
      method: 'POST',
      body: new URLSearchParams({
        token: refreshToken!,
        client_id: bed.server.clientId,
        client_secret: bed.server.clientSecret,
      }),
    });
    expect(revoked.status).toBe(200);
    const result = required(
      await host.getAccessToken({ caller, oauthAppRef: 'OAuthApp/github', minTtlSeconds: 10 ** 6 }),
    );
    expect(result.reason?.code).toBe('E_OAUTH_GRANT_REVOKED');
    expect(host.store.getGrant('OAuthApp/github', 'global')).toBeUndefined();
    await stop();
  });

  test('scopes outside the app, a per-user app without a user and an unknown app are errors', async () => {
    const { host, stop } = openHost('errors');
    const outside = await host.getAccessToken({ caller, oauthAppRef: 'OAuthApp/github', scopes: ['email'] });
    expect(outside).toMatchObject({ status: 'error', error: { code: 'E_OAUTH_SCOPE_NOT_ALLOWED' } });
    const noUser = await host.getAccessToken({ caller, oauthAppRef: 'OAuthApp/people' });
    expect(noUser).toMatchObject({ status: 'error', error: { code: 'E_OAUTH_NO_SUBJECT' } });
    const unknown = await host.getAccessToken({ caller, oauthAppRef: { kind: 'OAuthApp', name: 'gitlab' } });
    expect(unknown).toMatchObject({ status: 'error', error: { code: 'E_OAUTH_APP_UNKNOWN' } });
    await stop();
  });
});
