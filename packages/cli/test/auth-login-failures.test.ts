import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OAuthStore } from '../../core/src/oauth/oauth-store.ts';
import { resolveOAuthKey } from '../../core/src/oauth/resolve-oauth-key.ts';
import { followAuthorization } from '../../core/test/oauth-authorization-server.ts';
import { freshKey } from '../../core/test/oauth-fixture.ts';
import { type OAuthTestbed, startOAuthTestbed } from '../../core/test/oauth-testbed.ts';
import {
  type ProxyMode,
  startTokenEndpointProxy,
  type TokenEndpointProxy,
} from '../../core/test/token-endpoint-proxy.ts';
import { cliEnv, startAuthLogin } from './helpers.ts';

const TIMEOUT_MS = 500;
let bed: OAuthTestbed;
let proxy: TokenEndpointProxy;
let env: Record<string, string>;
let key: string;

beforeAll(async () => {
  bed = await startOAuthTestbed('goondan-auth-fail-');
  proxy = await startTokenEndpointProxy(bed.server.issuer);
  key = freshKey();
  env = cliEnv({
    GOONDAN_OAUTH_KEY: key,
    OAUTH_CLIENT_SECRET: bed.server.clientSecret,
    GOONDAN_OAUTH_TIMEOUT_MS: `${TIMEOUT_MS}`,
  });
});
afterAll(async () => {
  await proxy.close();
  await bed.close();
});

/**
 * A bundle with the github app; `proxied`: its token endpoint is the proxy (spec.endpoints, authorization straight at
 * the server), else discovered from the real server.
 */
function bundleDir(name: string, proxied: boolean): string {
  const dir = join(bed.dir, name);
  mkdirSync(dir);
  const endpoints = (issuer: string) =>
    `  endpoints: { authorization: "${issuer}/auth", token: "${proxy.origin}/token" }`;
  const yaml = proxied
    ? bed.githubAppYaml().replace(/^ {2}issuer: (\S+)$/m, (_, issuer) => endpoints(issuer))
    : bed.githubAppYaml();
  writeFileSync(join(dir, 'goondan.yaml'), yaml);
  return dir;
}

/** Waits for the process, failing the test (and killing it) if it does not end within `ms`. */
async function exited(login: ReturnType<typeof Bun.spawn>, ms = 15_000) {
  const timer = setTimeout(() => login.kill(), ms);
  const exitCode = await login.exited;
  clearTimeout(timer);
  return { exitCode, stderr: await new Response(login.stderr as ReadableStream).text() };
}

async function loginThroughProxy(mode: ProxyMode, name: string) {
  proxy.setMode(mode);
  const { login, link } = await startAuthLogin(bundleDir(name, true), env);
  // With spec.endpoints the issuer is taken as the token endpoint's origin (the proxy), so the server's own `iss`
  // would not match; a server that sends none is what this app describes.
  const callback = new URL(await followAuthorization(link, bed.redirectUri));
  callback.searchParams.delete('iss');
  const page = await fetch(callback);
  return { page: { status: page.status, text: await page.text() }, ...(await exited(login)) };
}

describe('gdn auth login ends when its own authorization fails', () => {
  test('a token endpoint that never answers: the page and the CLI say E_OAUTH_SERVER with the bound; exit 1', async () => {
    const { page, exitCode, stderr } = await loginThroughProxy('hang', 'hang');
    expect(page.status).toBe(400);
    expect(page.text).toContain('E_OAUTH_SERVER');
    expect(exitCode).toBe(1);
    expect(stderr).toContain('E_OAUTH_SERVER');
    expect(stderr).toContain(`${proxy.origin}/token did not answer within ${TIMEOUT_MS} ms`);
  }, 60_000);

  test('a token endpoint answering 500 with HTML: E_OAUTH_EXCHANGE_FAILED naming HTTP 500; exit 1', async () => {
    const { page, exitCode, stderr } = await loginThroughProxy('html500', 'html500');
    expect(page.text).toContain('E_OAUTH_EXCHANGE_FAILED');
    expect(exitCode).toBe(1);
    expect(stderr).toContain('E_OAUTH_EXCHANGE_FAILED');
    expect(stderr).toContain('HTTP 500');
  }, 60_000);

  test('a forged callback is ignored; the server redirecting back with access_denied ends login with exit 1', async () => {
    proxy.setMode('forward');
    const { login, link } = await startAuthLogin(bundleDir('denied', false), env);
    const state = new URL(link).searchParams.get('state')!;
    const forged = await fetch(`${bed.redirectUri}?code=x&state=not-the-state`);
    expect(await forged.text()).toContain('E_OAUTH_CALLBACK_INVALID');
    await Bun.sleep(300);
    expect(login.exitCode).toBeNull();
    const denied = new URL(bed.redirectUri);
    for (const [name, value] of Object.entries({ error: 'access_denied', state, iss: bed.server.issuer })) {
      denied.searchParams.set(name, value);
    }
    expect(await (await fetch(denied)).text()).toContain('E_OAUTH_EXCHANGE_FAILED');
    const { exitCode, stderr } = await exited(login);
    expect(exitCode).toBe(1);
    expect(stderr).toContain('E_OAUTH_EXCHANGE_FAILED');
    expect(stderr).toContain('access_denied');
    expect(stderr).not.toContain('E_OAUTH_CALLBACK_INVALID');
  }, 60_000);

  test('a session that expires while login waits ends it with E_OAUTH_SESSION_EXPIRED; exit 1', async () => {
    const dir = bundleDir('expired', false);
    // A pending session about to expire, as an earlier ask left it: login shows it again rather than start anew.
    const store = new OAuthStore(join(dir, '.goondan', 'oauth.db'), resolveOAuthKey({ GOONDAN_OAUTH_KEY: key }));
    store.saveSession({
      id: 'auth_expiring',
      app: 'OAuthApp/github',
      subject: 'global',
      flow: 'authorizationCode',
      scopes: ['openid'],
      requester: null,
      shown: { message: 'Open the link.' },
      secret: {
        state: 'expiring-state',
        codeVerifier: 'v'.repeat(43),
        authorizationUrl: `${bed.server.issuer}/auth?state=expiring-state`,
      },
      expiresAt: Date.now() + 3_000,
      intervalSeconds: 0,
    });
    store.close();
    const { login } = await startAuthLogin(dir, env);
    const { exitCode, stderr } = await exited(login);
    expect(exitCode).toBe(1);
    expect(stderr).toContain('E_OAUTH_SESSION_EXPIRED');
  }, 60_000);
});
