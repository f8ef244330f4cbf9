import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentEvent } from '../src/agent/agent-event.ts';
import { createOAuthHost } from '../src/oauth/oauth-host.ts';
import { OAuthStore } from '../src/oauth/oauth-store.ts';
import { resolveOAuthKey } from '../src/oauth/resolve-oauth-key.ts';
import { type AuthorizationServer, startAuthorizationServer } from './oauth-authorization-server.ts';
import { freshKey, oauthBundle } from './oauth-fixture.ts';

let server: AuthorizationServer;
let dir: string;

beforeAll(async () => {
  server = await startAuthorizationServer({ redirectUris: ['http://127.0.0.1:1/unused'] });
  dir = mkdtempSync(join(tmpdir(), 'goondan-oauth-device-'));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('device code (RFC 8628) against oidc-provider', () => {
  test('shows the user code and verification URI, polls until a person approves, then serves the token', async () => {
    const bundle = oauthBundle({
      tv: {
        issuer: server.issuer,
        clientId: server.clientId,
        clientSecret: { value: server.clientSecret },
        scopes: ['openid', 'offline_access', 'profile'],
        subjectMode: 'global',
        flow: 'deviceCode',
      },
    });
    const store = new OAuthStore(join(dir, 'oauth.db'), resolveOAuthKey({ GOONDAN_OAUTH_KEY: freshKey() }));
    const events: AgentEvent[] = [];
    const host = createOAuthHost({ bundle, store, onGranted: (event) => events.push(event) });
    const caller = { agentName: 'assistant', instanceKey: 'default' };

    const pending = await host.getAccessToken({ caller, oauthAppRef: 'OAuthApp/tv' });
    if (pending.status !== 'authorization_required') throw new Error(JSON.stringify(pending));
    expect(pending.authorizationUrl).toBeUndefined();
    expect(pending.userCode).toMatch(/\S{4,}/);
    expect(pending.verificationUri).toBe(`${server.issuer}/device`);
    expect(pending.message).toContain(pending.userCode!);
    const { session, done } = await host.login({ oauthAppRef: 'OAuthApp/tv', caller });
    expect(session.id).toBe(pending.authSessionId);
    // What may be shown carries no device code (the secret the host polls with).
    expect(JSON.stringify(pending)).not.toContain(session.secret.deviceCode!);

    await server.approveDevice(pending.userCode!);
    await done;
    expect(server.grants).toContain('urn:ietf:params:oauth:grant-type:device_code');
    const ready = await host.getAccessToken({ caller, oauthAppRef: 'OAuthApp/tv' });
    if (ready.status !== 'ready') throw new Error(JSON.stringify(ready));
    expect(events.map((event) => event.data)).toEqual([{ oauthApp: 'OAuthApp/tv', authSessionId: session.id }]);

    const { refreshToken } = store.getGrant('OAuthApp/tv', 'global')!.tokens;
    store.close();
    const written = readdirSync(dir)
      .map((name) => readFileSync(join(dir, name)).toString('latin1'))
      .join('\n');
    for (const secret of [ready.accessToken, refreshToken!, session.secret.deviceCode!]) {
      expect(written.includes(secret)).toBe(false);
    }
  }, 60_000);

  test('a person who cancels: the poll ends with a coded error, nothing is stored, and the next ask starts afresh', async () => {
    const bundle = oauthBundle({
      tv: {
        issuer: server.issuer,
        clientId: server.clientId,
        clientSecret: { value: server.clientSecret },
        scopes: ['openid', 'profile'],
        subjectMode: 'global',
        flow: 'deviceCode',
      },
    });
    const store = new OAuthStore(join(dir, 'denied.db'), resolveOAuthKey({ GOONDAN_OAUTH_KEY: freshKey() }));
    const events: AgentEvent[] = [];
    const host = createOAuthHost({ bundle, store, onGranted: (event) => events.push(event) });
    const caller = { agentName: 'assistant', instanceKey: 'default' };
    const { session, done } = await host.login({ oauthAppRef: 'OAuthApp/tv', caller });
    await server.denyDevice(session.shown.userCode!);
    await expect(done).rejects.toMatchObject({ code: 'E_OAUTH_EXCHANGE_FAILED' });
    expect(server.tokenErrors).toContain('access_denied');
    expect(store.listGrants()).toEqual([]);
    expect(events).toEqual([]);
    const again = await host.getAccessToken({ caller, oauthAppRef: 'OAuthApp/tv' });
    if (again.status !== 'authorization_required') throw new Error(JSON.stringify(again));
    expect(again.authSessionId).not.toBe(session.id);
    expect(again.userCode).not.toBe(session.shown.userCode);
    await host.logout({ oauthAppRef: 'OAuthApp/tv', caller });
    store.close();
  }, 60_000);
});
