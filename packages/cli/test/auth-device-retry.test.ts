// `gdn auth login` of a device-code OAuthApp whose token endpoint fails for a while (a gateway's 503): the login
// goes on polling, says each retry on stderr, and stores the grant once the person approves (docs/oauth.md).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
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
  writeFileSync(
    join(bed.dir, 'goondan.yaml'),
    `apiVersion: goondan.ai/v1
kind: OAuthApp
metadata: { name: tv }
spec:
  clientId: ${bed.server.clientId}
  clientSecret: { valueFrom: { env: OAUTH_CLIENT_SECRET } }
  scopes: [offline_access, profile]
  subjectMode: global
  flow: deviceCode
  endpoints: { token: "${proxy.origin}/token", deviceAuthorization: "${proxy.origin}/device/auth" }
`,
  );
});
afterAll(async () => {
  await proxy.close();
  await bed.close();
});

describe('gdn auth login, device code', () => {
  test('two polls answered 503 are retried and said on stderr; the approval then completes the login', async () => {
    proxy.plan('unavailable', 'unavailable');
    const login = Bun.spawn([process.execPath, mainTs, 'auth', 'login', 'tv', '--bundle', bed.dir], {
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
    const userCode = /enter the code (\S+) /.exec(shown)![1]!;
    await proxy.waitForTokenRequests(2, 'unavailable');
    await bed.server.approveDevice(userCode);
    const exitCode = await login.exited;
    const [rest, stderr] = await Promise.all([
      (async () => {
        let text = '';
        for (;;) {
          const { value, done } = await stdout.read();
          if (done) return text;
          text += new TextDecoder().decode(value);
        }
      })(),
      new Response(login.stderr).text(),
    ]);
    expect({ exitCode, stderr }).toEqual({ exitCode: 0, stderr: expect.any(String) });
    expect(rest).toContain('Authorized OAuthApp/tv.');
    const retries = stderr.split('\n').filter((line) => line.includes('polling again in'));
    expect(retries).toHaveLength(2);
    expect(retries[0]).toContain('answered HTTP 503');
    expect(retries[1]).toContain('2 failures in a row');

    const listed = await gdn(['auth', 'list', '--bundle', bed.dir, '--json'], { env });
    expect(listed.exitCode).toBe(0);
    const apps = (JSON.parse(listed.stdout) as { apps: { app: string; grants: unknown[] }[] }).apps;
    expect(apps.find((app) => app.app === 'OAuthApp/tv')?.grants).toHaveLength(1);
  }, 120_000);
});
