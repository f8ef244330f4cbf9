import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentEvent } from '../src/agent/agent-event.ts';
import { createOAuthHost } from '../src/oauth/oauth-host.ts';
import { OAuthStore } from '../src/oauth/oauth-store.ts';
import { resolveOAuthKey } from '../src/oauth/resolve-oauth-key.ts';
import { freshKey, oauthBundle } from './oauth-fixture.ts';
import { type OAuthTestbed, startOAuthTestbed } from './oauth-testbed.ts';

let bed: OAuthTestbed;

beforeAll(async () => {
  bed = await startOAuthTestbed('goondan-oauth-device-');
});
afterAll(() => bed.close());

describe('device code (RFC 8628) against oidc-provider', () => {
  test('shows the user code and verification URI, polls until a person approves, then serves the token', async () => {
    const bundle = oauthBundle({ tv: bed.appSpec('deviceCode') });
    const store = new OAuthStore(join(bed.dir, 'oauth.db'), resolveOAuthKey({ GOONDAN_OAUTH_KEY: freshKey() }));
    const events: AgentEvent[] = [];
    const host = createOAuthHost({ bundle, store, onGranted: (event) => events.push(event) });
    const caller = { agentName: 'assistant', instanceKey: 'default' };

    const pending = await host.getAccessToken({ caller, oauthAppRef: 'OAuthApp/tv' });
    if (pending.status !== 'authorization_required') throw new Error(JSON.stringify(pending));
    expect(pending.authorizationUrl).toBeUndefined();
    expect(pending.userCode).toMatch(/\S{4,}/);
    expect(pending.verificationUri).toBe(`${bed.server.issuer}/device`);
    expect(pending.message).toContain(pending.userCode!);
    const { session, done } = await host.login({ oauthAppRef: 'OAuthApp/tv', caller });
    expect(session.id).toBe(pending.authSessionId);
    // What may be shown carries no device code (the secret the host polls with).
    expect(JSON.stringify(pending)).not.toContain(session.secret.deviceCode!);

    await bed.server.approveDevice(pending.userCode!);
    await done;
    expect(bed.server.grants).toContain('urn:ietf:params:oauth:grant-type:device_code');
    const ready = await host.getAccessToken({ caller, oauthAppRef: 'OAuthApp/tv' });
    if (ready.status !== 'ready') throw new Error(JSON.stringify(ready));
    expect(events.map((event) => event.data)).toEqual([{ oauthApp: 'OAuthApp/tv', authSessionId: session.id }]);

    const { refreshToken } = store.getGrant('OAuthApp/tv', 'global')!.tokens;
    store.close();
    const written = readdirSync(bed.dir)
      .map((name) => readFileSync(join(bed.dir, name)).toString('latin1'))
      .join('\n');
    for (const secret of [ready.accessToken, refreshToken!, session.secret.deviceCode!]) {
      expect(written.includes(secret)).toBe(false);
    }
  }, 60_000);

  test('a person who cancels: the poll ends with a coded error, nothing is stored, and the next ask starts afresh', async () => {
    const bundle = oauthBundle({ tv: { ...bed.appSpec('deviceCode'), scopes: ['openid', 'profile'] } });
    const store = new OAuthStore(join(bed.dir, 'denied.db'), resolveOAuthKey({ GOONDAN_OAUTH_KEY: freshKey() }));
    const events: AgentEvent[] = [];
    const host = createOAuthHost({ bundle, store, onGranted: (event) => events.push(event) });
    const caller = { agentName: 'assistant', instanceKey: 'default' };
    const { session, done } = await host.login({ oauthAppRef: 'OAuthApp/tv', caller });
    await bed.server.denyDevice(session.shown.userCode!);
    await expect(done).rejects.toMatchObject({ code: 'E_OAUTH_EXCHANGE_FAILED' });
    expect(bed.server.tokenErrors).toContain('access_denied');
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
