// gdn serve with an OAuthApp (docs/oauth.md, docs/connectors.md#oauth), as real processes against a real
// authorization server: the serve process opens the OAuth host and serves its loopback callback; a Connection's
// connector asks for a token in its own process (authorization_required, then told when a person granted it, then
// ready), and a swarm agent's tool gets the same grant over IPC. No token reaches a file, a log line or an answer.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { OAuthStore } from '../../core/src/oauth/oauth-store.ts';
import { resolveOAuthKey } from '../../core/src/oauth/resolve-oauth-key.ts';
import { followAuthorization } from '../../core/test/oauth-authorization-server.ts';
import { freshKey } from '../../core/test/oauth-fixture.ts';
import { type OAuthTestbed, startOAuthTestbed } from '../../core/test/oauth-testbed.ts';
import { cleanupTempDirs, cliEnv, everythingWritten, makeTempDir, startAuthLogin, startGdn } from './helpers.ts';

const coreIndex = resolve(import.meta.dir, '..', '..', 'core', 'src', 'index.ts');
let bed: OAuthTestbed;
const started: ReturnType<typeof startGdn>[] = [];

beforeAll(async () => {
  bed = await startOAuthTestbed('gdn-serve-oauth-server-');
});
afterAll(async () => {
  for (const server of started) if (server.proc.exitCode === null) server.proc.kill('SIGKILL');
  await bed.close();
  await cleanupTempDirs();
});

/**
 * A connector that asks for OAuthApp/github's token at start and writes what it got to `<out>/first.json`; a bad
 * request's answer to `bad.json`; once told of the grant, asks again, calls the server's userinfo with the token,
 * logs the token (carelessly) and writes `granted.json`.
 */
const tokenConnector = (me: string) => `import { writeFileSync } from 'node:fs';
export default async function tokens(ctx) {
  const out = ctx.config.OUT;
  ctx.oauth.onGranted(async (grant) => {
    const result = await ctx.oauth.getAccessToken({ oauthAppRef: 'OAuthApp/github' });
    const response = await fetch(${JSON.stringify(me)}, { headers: { authorization: 'Bearer ' + result.accessToken } });
    ctx.logger.info('token is ' + result.accessToken);
    writeFileSync(out + '/granted.json', JSON.stringify({ grant, status: result.status, user: (await response.json()).sub }));
  });
  writeFileSync(out + '/bad.json', JSON.stringify(await ctx.oauth.getAccessToken({ oauthAppRef: 42 })));
  writeFileSync(out + '/first.json', JSON.stringify(await ctx.oauth.getAccessToken({ oauthAppRef: 'OAuthApp/github' })));
  await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
}
`;

function writeBundle(dir: string, out: string): void {
  mkdirSync(join(dir, 'tools'));
  const me = `${bed.server.issuer}/me`;
  writeFileSync(join(dir, 'tokens.ts'), tokenConnector(me));
  writeFileSync(
    join(dir, 'tools', 'api.ts'),
    `import { useOAuthService } from ${JSON.stringify(coreIndex)};
export const handlers = {
  async whoami(ctx) {
    const result = await useOAuthService().getAccessToken({ caller: ctx, oauthAppRef: 'OAuthApp/github' });
    if (result.status !== 'ready') return result;
    const response = await fetch(${JSON.stringify(me)}, { headers: { authorization: 'Bearer ' + result.accessToken } });
    return { status: response.status, user: (await response.json()).sub };
  },
};
`,
  );
  writeFileSync(
    join(dir, 'goondan.yaml'),
    `${bed.githubAppYaml()}---
${bed.githubAppYaml().replace('name: github', 'name: gitlab')}---
apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: api }
spec:
  entry: ./tools/api.ts
  exports:
    - { name: whoami, description: Who the token belongs to., parameters: { type: object } }
---
apiVersion: goondan.ai/v1
kind: Model
metadata: { name: main }
spec:
  provider: scripted
  model: fixture
  script: [{ toolCalls: [{ name: api__whoami, args: {} }] }, { text: "Checked." }]
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: helper }
spec:
  modelConfig: { modelRef: Model/main }
  tools: [Tool/api]
---
apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: desk }
spec:
  entryAgent: Agent/helper
  agents: [Agent/helper]
---
apiVersion: goondan.ai/v1
kind: Connector
metadata: { name: tokens }
spec:
  entry: ./tokens.ts
  events: [{ name: ping }]
---
apiVersion: goondan.ai/v1
kind: Connection
metadata: { name: token-desk }
spec:
  connectorRef: Connector/tokens
  config:
    OUT: { value: "${out}" }
`,
  );
}

async function waitForFile(path: string, timeoutMs = 60_000): Promise<unknown> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`no ${path} within ${timeoutMs} ms`);
    await Bun.sleep(20);
  }
  // Written in one call; read until it parses (the write may be under way).
  for (;;) {
    try {
      return JSON.parse(readFileSync(path, 'utf8'));
    } catch (thrown) {
      if (Date.now() > deadline) throw thrown;
      await Bun.sleep(20);
    }
  }
}

describe('gdn serve with an OAuthApp', () => {
  test('a connector asks for a token, is told of the grant, then gets it; an agent process gets it too', async () => {
    const dir = await makeTempDir('gdn-serve-oauth-');
    const out = await makeTempDir('gdn-serve-oauth-out-');
    writeBundle(dir, out);
    const key = freshKey();
    const env = cliEnv({ GOONDAN_OAUTH_KEY: key, OAUTH_CLIENT_SECRET: bed.server.clientSecret });
    const server = startGdn(['serve', '--bundle', dir, '--port', '0'], { env });
    started.push(server);
    await server.waitForStderr('OpenAI-compatible base URL: ', 60_000);
    const url = /base URL: (\S+)\/v1/.exec(server.stderr)![1]!;

    // A request of the wrong shape gets a coded answer, not a hang or a crash.
    const bad = (await waitForFile(join(out, 'bad.json'))) as { status: string; error: { code: string } };
    expect(bad).toMatchObject({ status: 'error', error: { code: 'E_OPTIONS_INVALID' } });
    const first = (await waitForFile(join(out, 'first.json'))) as { status: string; authorizationUrl: string };
    expect(first.status).toBe('authorization_required');

    // A person authorizes; the browser comes back to gdn serve's own loopback callback.
    const callback = await followAuthorization(first.authorizationUrl, bed.redirectUri);
    const landed = await fetch(callback);
    expect(landed.status).toBe(200);
    const granted = (await waitForFile(join(out, 'granted.json'))) as Record<string, unknown>;
    expect(granted).toEqual({ grant: { oauthApp: 'OAuthApp/github' }, status: 'ready', user: 'ada' });
    await server.waitForStderr('token is ');

    // gdn auth login while gdn serve holds the callback address: serve answers the callback into the same store,
    // and the login sees its grant there.
    const { login, link } = await startAuthLogin(dir, env, 'gitlab');
    const loggedIn = await fetch(await followAuthorization(link, bed.redirectUri));
    expect(loggedIn.status).toBe(200);
    expect(await login.exited).toBe(0);
    expect(await new Response(login.stderr).text()).toContain('the callback address is in use');

    // An agent process of the swarm gets the same grant over IPC.
    const response = await fetch(`${url}/v1/agents/helper/instances/default/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'Who am I?', wait: true }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'completed', text: 'Checked.' });
    const conversation = await (await fetch(`${url}/v1/agents/helper/instances/default/conversation`)).text();
    expect(conversation).toContain('"output":{"status":200,"user":"ada"}');

    server.proc.kill('SIGTERM');
    const result = await server.finish();
    // 143: the documented exit after SIGTERM, once everything stopped (the OAuth store closed with it).
    expect(result.exitCode).toBe(143);
    const store = new OAuthStore(join(dir, '.goondan', 'oauth.db'), resolveOAuthKey({ GOONDAN_OAUTH_KEY: key }));
    const { tokens } = store.getGrant('OAuthApp/github', 'global')!;
    store.close();
    const everything = [everythingWritten(dir), everythingWritten(out), result.stdout, result.stderr].join('\n');
    expect(everything).toContain('token is ***');
    for (const secret of [tokens.accessToken, tokens.refreshToken!]) expect(everything.includes(secret)).toBe(false);
  }, 120_000);
});
