// Device-code polling against oidc-provider (on 127.0.0.1) behind a proxy that fails the token endpoint on demand:
// what may pass (a 503, a refused connection, no answer) is retried with the interval doubled, a refusal still ends
// the authorization, and no failing server keeps it past the session's expiry (docs/oauth.md#flows).
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { createOAuthHost } from '../src/oauth/oauth-host.ts';
import { OAuthStore } from '../src/oauth/oauth-store.ts';
import type { DevicePollRetry } from '../src/oauth/poll-device-authorization.ts';
import { resolveOAuthKey } from '../src/oauth/resolve-oauth-key.ts';
import { type DeviceFlowProxy, startDeviceFlowProxy } from './device-flow-proxy.ts';
import { freshKey, oauthBundle } from './oauth-fixture.ts';
import { type OAuthTestbed, startOAuthTestbed } from './oauth-testbed.ts';

const caller = { agentName: 'assistant', instanceKey: 'default' };
let bed: OAuthTestbed;
let proxy: DeviceFlowProxy | undefined;
let stores = 0;

beforeAll(async () => {
  bed = await startOAuthTestbed('goondan-oauth-device-retry-');
});
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});
afterAll(() => bed.close());

/**
 * A device-code host whose device authorization and token requests go through a proxy (interval 1 s), with the
 * retries it reports and a way to wait for them.
 */
function deviceHost(options: { expiresInSeconds?: number; requestTimeoutMs?: number } = {}) {
  const through = startDeviceFlowProxy(bed.server.issuer, { intervalSeconds: 1, ...options });
  proxy = through;
  const { issuer, ...spec } = bed.appSpec('deviceCode');
  const store = new OAuthStore(
    join(bed.dir, `retry-${stores++}.db`),
    resolveOAuthKey({ GOONDAN_OAUTH_KEY: freshKey() }),
  );
  const retries: DevicePollRetry[] = [];
  const waiting = new Set<() => void>();
  const host = createOAuthHost({
    bundle: oauthBundle({
      tv: {
        ...spec,
        issuer,
        endpoints: { token: `${through.origin}/token`, deviceAuthorization: `${through.origin}/device/auth` },
      },
    }),
    store,
    ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
    onDevicePollRetry: (retry) => {
      retries.push(retry);
      for (const wake of waiting) wake();
    },
  });
  const waitForRetries = (count: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        if (retries.length < count) return;
        waiting.delete(wake);
        resolve();
      };
      waiting.add(wake);
      wake();
    });
  return { proxy: through, store, host, retries, waitForRetries };
}

describe('device code polling when the token endpoint fails for a while', () => {
  test('503 for two polls, then the person approves: polling goes on, the wait doubled, and the login succeeds', async () => {
    const { proxy, store, host, retries } = deviceHost();
    proxy.plan('unavailable', 'unavailable');
    const { session, done } = await host.login({ oauthAppRef: 'OAuthApp/tv', caller });
    await proxy.waitForTokenRequests(2, 'unavailable');
    await bed.server.approveDevice(session.shown.userCode!);
    await done;

    expect(store.getGrant('OAuthApp/tv', 'global')).toBeDefined();
    expect((await host.getAccessToken({ caller, oauthAppRef: 'OAuthApp/tv' })).status).toBe('ready');
    expect(retries.map((retry) => [retry.failure, retry.failures, retry.nextPollInMs])).toEqual([
      ['answered HTTP 503 Service Unavailable', 1, 2000],
      ['answered HTTP 503 Service Unavailable', 2, 4000],
    ]);
    expect(retries[0]!.message).toContain(
      `${proxy.origin}/token answered HTTP 503 Service Unavailable; polling again in 2 s`,
    );
    // The polls came 2 s, then 4 s apart (the 1 s interval doubled per failure), the third one forwarded.
    const [first, second, third] = proxy.tokenRequests;
    expect(third?.answer).toBe('forward');
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1900);
    expect(third!.at - second!.at).toBeGreaterThanOrEqual(3900);
    store.close();
  }, 60_000);

  test('a connection refused for a moment is retried; once the server listens again the approval is seen', async () => {
    const { proxy, store, host, retries, waitForRetries } = deviceHost();
    const { session, done } = await host.login({ oauthAppRef: 'OAuthApp/tv', caller });
    await proxy.down();
    await waitForRetries(1);
    proxy.up();
    await bed.server.approveDevice(session.shown.userCode!);
    await done;
    expect(retries[0]!.failure).toStartWith('could not be reached (');
    expect(store.getGrant('OAuthApp/tv', 'global')).toBeDefined();
    store.close();
  }, 60_000);

  test('a poll with no answer is retried after the request bound; when the server answers again, the login succeeds', async () => {
    const { proxy, store, host, retries } = deviceHost({ requestTimeoutMs: 400 });
    proxy.plan('hang');
    const { session, done } = await host.login({ oauthAppRef: 'OAuthApp/tv', caller });
    await proxy.waitForTokenRequests(1, 'hang');
    await bed.server.approveDevice(session.shown.userCode!);
    await done;
    expect(retries.map((retry) => retry.failure)).toEqual(['did not answer within 400 ms']);
    expect(store.getGrant('OAuthApp/tv', 'global')).toBeDefined();
    store.close();
  }, 60_000);

  test('a refusal after a 503 still ends it: access_denied spends the session and stores nothing', async () => {
    const { proxy, store, host, retries } = deviceHost();
    proxy.plan('unavailable');
    const { session, done } = await host.login({ oauthAppRef: 'OAuthApp/tv', caller });
    await proxy.waitForTokenRequests(1, 'unavailable');
    await bed.server.denyDevice(session.shown.userCode!);
    const failure = await done.catch((error) => error);
    expect(failure).toMatchObject({ code: 'E_OAUTH_EXCHANGE_FAILED' });
    expect(String(failure.message)).toContain('access_denied');
    expect(retries).toHaveLength(1);
    expect(store.session(session.id)?.usedAt).not.toBeNull();
    expect(store.listGrants()).toEqual([]);
    store.close();
  }, 60_000);

  test('a server that never answers does not keep the login past the session: it ends at expiry, naming the failure', async () => {
    // The default request bound (30 s) is longer than the whole session (3 s): the poll is cut at the expiry.
    const { proxy, store, host } = deviceHost({ expiresInSeconds: 3 });
    proxy.always('hang');
    const { session, done } = await host.login({ oauthAppRef: 'OAuthApp/tv', caller });
    const failure = await done.catch((error) => error);
    expect(Date.now()).toBeLessThan(session.expiresAt + 2_000);
    expect(failure).toMatchObject({ code: 'E_OAUTH_SESSION_EXPIRED' });
    expect(String(failure.message)).toContain(`expired while ${proxy.origin}/token kept failing`);
    expect(String(failure.message)).toMatch(/the last one: it did not answer within \d+ ms/);
    expect(failure.suggestion).toContain('gdn auth login OAuthApp/tv');
    expect(store.listGrants()).toEqual([]);
    store.close();
  }, 60_000);
});
