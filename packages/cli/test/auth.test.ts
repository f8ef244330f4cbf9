import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OAuthStore } from '../../core/src/oauth/oauth-store.ts';
import { resolveOAuthKey } from '../../core/src/oauth/resolve-oauth-key.ts';
import { followAuthorization } from '../../core/test/oauth-authorization-server.ts';
import { freshKey } from '../../core/test/oauth-fixture.ts';
import { type OAuthTestbed, startOAuthTestbed } from '../../core/test/oauth-testbed.ts';
import { cliEnv, gdn, startAuthLogin } from './helpers.ts';

let bed: OAuthTestbed;
let env: Record<string, string>;
let key: string;

beforeAll(async () => {
  bed = await startOAuthTestbed('goondan-auth-');
  key = freshKey();
  env = cliEnv({ GOONDAN_OAUTH_KEY: key, OAUTH_CLIENT_SECRET: bed.server.clientSecret });
  writeFileSync(join(bed.dir, 'goondan.yaml'), bed.githubAppYaml());
});
afterAll(() => bed.close());

describe('gdn auth', () => {
  test('login prints the link, takes the callback and stores the grant; list shows it; logout removes it', async () => {
    const { login, link } = await startAuthLogin(bed.dir, env);
    expect(new URL(link).searchParams.get('code_challenge_method')).toBe('S256');
    const callback = await followAuthorization(link, bed.redirectUri);
    expect((await fetch(callback)).status).toBe(200);
    expect(await login.exited).toBe(0);

    const list = await gdn(['auth', 'list', '--bundle', bed.dir], { env });
    expect(list.exitCode).toBe(0);
    expect(list.stdout).toContain('OAuthApp/github  authorizationCode  subjectMode=global');
    expect(list.stdout).toMatch(/ {2}global {2}granted .*profile/);

    const written = readdirSync(join(bed.dir, '.goondan'))
      .map((name) => readFileSync(join(bed.dir, '.goondan', name)).toString('latin1'))
      .join('');
    expect(written).toContain('SQLite format 3');
    expect(written.includes(bed.server.clientSecret)).toBe(false);

    const logout = await gdn(['auth', 'logout', 'github', '--bundle', bed.dir], { env });
    expect(logout.stdout).toContain('Logged out of OAuthApp/github.');
    expect((await gdn(['auth', 'list', '--bundle', bed.dir], { env })).stdout).toContain('not authorized');
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

  test('a damaged store is E_STORE_CORRUPT naming the file and what to do, not an unexpected failure', async () => {
    const dir = join(bed.dir, 'damaged');
    mkdirSync(join(dir, '.goondan'), { recursive: true });
    writeFileSync(join(dir, 'goondan.yaml'), bed.githubAppYaml());
    const file = join(dir, '.goondan', 'oauth.db');
    // Enough grants to fill pages past the schema's, then those pages overwritten as a bad disk or copy leaves them.
    const store = new OAuthStore(file, resolveOAuthKey({ GOONDAN_OAUTH_KEY: key }));
    for (let i = 0; i < 100; i++) {
      const tokens = { accessToken: `at-${i}-${'x'.repeat(400)}`, tokenType: 'Bearer', expiresAt: null };
      store.saveGrant({ app: `OAuthApp/app${i}`, subject: 'global', tokens, scopes: ['openid'] });
    }
    store.close();
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(4096 * 8, 0x5a), 0, 4096 * 8, 4096 * 2);
    closeSync(fd);
    const damaged = await gdn(['auth', 'list', '--bundle', dir], { env });
    expect(damaged.exitCode).toBe(1);
    expect(damaged.stderr).toContain(`E_STORE_CORRUPT OAuth store ${file} is not a readable SQLite database`);
    expect(damaged.stderr).toContain('Move ');
    expect(damaged.stderr).not.toContain('unexpected failure');

    writeFileSync(file, 'not a database at all, overwritten by something else');
    const overwritten = await gdn(['auth', 'logout', 'github', '--bundle', dir], { env });
    expect(overwritten.exitCode).toBe(1);
    expect(overwritten.stderr).toContain('E_STORE_CORRUPT');
  });

  test('list on a bundle without an OAuthApp says so, and an invalid bundle prints its problems as validate does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gdn-auth-none-'));
    try {
      writeFileSync(
        join(dir, 'goondan.yaml'),
        'apiVersion: goondan.ai/v1\nkind: Tool\nmetadata:\n  name: a__b\nspec: {}\n',
      );
      const invalid = await gdn(['auth', 'list', '--bundle', dir], { env });
      expect(invalid.exitCode).toBe(1);
      expect(invalid.stderr).toContain('goondan.yaml:4:9  E_NAME_INVALID');
      expect(invalid.stderr).toContain(`✗ `);
      writeFileSync(
        join(dir, 'goondan.yaml'),
        'apiVersion: goondan.ai/v1\nkind: Model\nmetadata:\n  name: main\nspec:\n  provider: scripted\n  model: demo\n  script: []\n',
      );
      const none = await gdn(['auth', 'list', '--bundle', dir], { env });
      expect(none.stderr).toBe('');
      expect(none.exitCode).toBe(0);
      expect(none.stdout).toMatch(
        /^No OAuthApp in \S+: declare one to give tools OAuth tokens \(https:\S+\/oauth\.md\)\.\n$/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
