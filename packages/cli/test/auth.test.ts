import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AuthorizationServer,
  followAuthorization,
  startAuthorizationServer,
} from '../../core/test/oauth-authorization-server.ts';
import { freePort, freshKey } from '../../core/test/oauth-fixture.ts';
import { cliEnv, gdn, mainTs } from './helpers.ts';

let server: AuthorizationServer;
let bundleDir: string;
let redirectUri: string;
let env: Record<string, string>;

beforeAll(async () => {
  redirectUri = `http://127.0.0.1:${freePort()}/oauth/callback`;
  server = await startAuthorizationServer({ redirectUris: [redirectUri] });
  bundleDir = mkdtempSync(join(tmpdir(), 'goondan-auth-'));
  env = cliEnv({ GOONDAN_OAUTH_KEY: freshKey(), OAUTH_CLIENT_SECRET: server.clientSecret });
  writeFileSync(
    join(bundleDir, 'goondan.yaml'),
    `apiVersion: goondan.ai/v1
kind: OAuthApp
metadata: { name: github }
spec:
  issuer: ${server.issuer}
  clientId: ${server.clientId}
  clientSecret: { valueFrom: { env: OAUTH_CLIENT_SECRET } }
  scopes: [openid, offline_access, profile]
  subjectMode: global
  flow: authorizationCode
  redirectUri: ${redirectUri}
  authorizationParams: { prompt: consent }
`,
  );
});
afterAll(async () => {
  await server.close();
  rmSync(bundleDir, { recursive: true, force: true });
});

describe('gdn auth', () => {
  test('login prints the link, takes the callback and stores the grant; list shows it; logout removes it', async () => {
    const login = Bun.spawn([process.execPath, mainTs, 'auth', 'login', 'github', '--bundle', bundleDir], {
      env,
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const reader = login.stdout.getReader();
    let stdout = '';
    while (!/^http\S+$/m.test(stdout)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`login ended early: ${stdout}${await new Response(login.stderr).text()}`);
      stdout += new TextDecoder().decode(value);
    }
    const link = /^(http\S+)$/m.exec(stdout)![1]!;
    expect(new URL(link).searchParams.get('code_challenge_method')).toBe('S256');
    const callback = await followAuthorization(link, redirectUri);
    expect((await fetch(callback)).status).toBe(200);
    expect(await login.exited).toBe(0);

    const list = await gdn(['auth', 'list', '--bundle', bundleDir], { env });
    expect(list.exitCode).toBe(0);
    expect(list.stdout).toContain('OAuthApp/github  authorizationCode  subjectMode=global');
    expect(list.stdout).toMatch(/ {2}global {2}granted .*profile/);

    const written = readdirSync(join(bundleDir, '.goondan'))
      .map((name) => readFileSync(join(bundleDir, '.goondan', name)).toString('latin1'))
      .join('');
    expect(written).toContain('SQLite format 3');
    expect(written.includes(server.clientSecret)).toBe(false);

    const logout = await gdn(['auth', 'logout', 'github', '--bundle', bundleDir], { env });
    expect(logout.stdout).toContain('Logged out of OAuthApp/github.');
    expect((await gdn(['auth', 'list', '--bundle', bundleDir], { env })).stdout).toContain('not authorized');
  });

  test('validate refuses an OAuthApp whose flow cannot work, at the field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'goondan-auth-bad-'));
    writeFileSync(
      join(dir, 'goondan.yaml'),
      `apiVersion: goondan.ai/v1
kind: OAuthApp
metadata: { name: broken }
spec:
  issuer: https://auth.example.com
  clientId: x
  scopes: [read]
  subjectMode: global
  flow: authorizationCode
`,
    );
    const result = await gdn(['validate', '--bundle', dir], { env });
    rmSync(dir, { recursive: true, force: true });
    expect(result.exitCode).toBe(1);
    expect(result.stdout + result.stderr).toContain('E_OAUTH_APP_INVALID');
    expect(result.stdout + result.stderr).toContain('redirectUri');
  });
});
