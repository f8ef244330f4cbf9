// `gdn auth login` of a device-code OAuthApp whose token endpoint fails for a while (a gateway's 503): the login
// goes on polling, says each retry on stderr, and stores the grant once the person approves (docs/oauth.md).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DeviceFlowProxy, startDeviceFlowProxy } from '../../core/test/device-flow-proxy.ts';
import { freshKey } from '../../core/test/oauth-fixture.ts';
import { type OAuthTestbed, startOAuthTestbed } from '../../core/test/oauth-testbed.ts';
import { cliEnv, gdn, mainTs } from './helpers.ts';

let bed: OAuthTestbed;
let proxy: DeviceFlowProxy;
let env: Record<string, string>;

beforeAll(async () => {
  bed = await startOAuthTestbed('goondan-auth-device-');
  proxy = startDeviceFlowProxy(bed.server.issuer, { intervalSeconds: 1 });
  env = cliEnv({ GOONDAN_OAUTH_KEY: freshKey(), OAUTH_CLIENT_SECRET: bed.server.clientSecret });
});
/**
 * A bundle dir whose device-code OAuthApp `tv` reaches oidc-provider through the proxy (endpoints, no discovery),
 * asking for an ID token (openid); with `issuer`, the issuer its ID tokens name.
 */
function bundleDir(name: string, options: { issuer: boolean }): string {
  const dir = join(bed.dir, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'goondan.yaml'),
    `apiVersion: goondan.ai/v1
kind: OAuthApp
metadata: { name: tv }
spec:
${options.issuer ? `  issuer: ${bed.server.issuer}\n` : ''}  clientId: ${bed.server.clientId}
  clientSecret: { valueFrom: { env: OAUTH_CLIENT_SECRET } }
  scopes: [openid, offline_access, profile]
  subjectMode: global
  flow: deviceCode
  endpoints: { token: "${proxy.origin}/token", deviceAuthorization: "${proxy.origin}/device/auth" }
`,
  );
  return dir;
}

/** `gdn auth login tv` in `dir`: resolves with the user code once it is shown, and the process. */
async function startLogin(dir: string) {
  const login = Bun.spawn([process.execPath, mainTs, 'auth', 'login', 'tv', '--bundle', dir], {
    env,
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const stdout = login.stdout.getReader();
  let shown = '';
  while (!/enter the code (\S+) /.test(shown)) {
    const { value, done } = await stdout.read();
    if (done) throw new Error(`login ended early: ${shown}${await new Response(login.stderr).text()}`);
    shown += new TextDecoder().decode(value);
  }
  const rest = (async () => {
    let text = '';
    for (;;) {
      const { value, done } = await stdout.read();
      if (done) return text;
      text += new TextDecoder().decode(value);
    }
  })();
  const stderr = new Response(login.stderr).text();
  return {
    userCode: /enter the code (\S+) /.exec(shown)![1]!,
    ended: async () => ({ exitCode: await login.exited, stdout: await rest, stderr: await stderr }),
  };
}

afterAll(async () => {
  await proxy.close();
  await bed.close();
});

describe('gdn auth login, device code', () => {
  test('two polls answered 503 are retried and said on stderr; the approval then completes the login', async () => {
    const dir = bundleDir('retry', { issuer: true });
    proxy.plan('unavailable', 'unavailable');
    const login = await startLogin(dir);
    await proxy.waitForTokenRequests(2, 'unavailable');
    await bed.server.approveDevice(login.userCode);
    const { exitCode, stdout, stderr } = await login.ended();
    expect({ exitCode, stderr }).toEqual({ exitCode: 0, stderr: expect.any(String) });
    expect(stdout).toContain('Authorized OAuthApp/tv.');
    const retries = stderr.split('\n').filter((line) => line.includes('polling again in'));
    expect(retries).toHaveLength(2);
    expect(retries[0]).toContain('answered HTTP 503');
    expect(retries[1]).toContain('2 failures in a row');

    const listed = await gdn(['auth', 'list', '--bundle', dir, '--json'], { env });
    expect(listed.exitCode).toBe(0);
    const apps = (JSON.parse(listed.stdout) as { apps: { app: string; grants: unknown[] }[] }).apps;
    expect(apps.find((app) => app.app === 'OAuthApp/tv')?.grants).toHaveLength(1);
  }, 120_000);

  test('endpoints without the issuer its ID tokens name: refused, saying which issuer to set; nothing stored', async () => {
    const dir = bundleDir('no-issuer', { issuer: false });
    const login = await startLogin(dir);
    await bed.server.approveDevice(login.userCode);
    const { exitCode, stderr } = await login.ended();
    expect(exitCode).toBe(1);
    expect(stderr).toContain('E_OAUTH_EXCHANGE_FAILED');
    expect(stderr).toContain(`set the OAuthApp's spec.issuer to "${bed.server.issuer}"`);
    const listed = await gdn(['auth', 'list', '--bundle', dir, '--json'], { env });
    const apps = (JSON.parse(listed.stdout) as { apps: { app: string; grants: unknown[] }[] }).apps;
    expect(apps.find((app) => app.app === 'OAuthApp/tv')?.grants).toEqual([]);
  }, 120_000);
});
