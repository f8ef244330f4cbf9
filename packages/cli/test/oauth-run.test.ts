// gdn run with a tool that asks for an OAuth token (docs/oauth.md): the agent process asks the host (gdn's own
// process) over IPC, the token works at the real authorization server, and no token is anywhere the run wrote.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startOpenAICompatibleServer } from '@goondan/core/testing';
import { createOAuthHost } from '../../core/src/oauth/oauth-host.ts';
import { OAuthStore } from '../../core/src/oauth/oauth-store.ts';
import { resolveOAuthKey } from '../../core/src/oauth/resolve-oauth-key.ts';
import { freshKey, oauthBundle } from '../../core/test/oauth-fixture.ts';
import { type OAuthTestbed, startOAuthTestbed } from '../../core/test/oauth-testbed.ts';
import {
  chatBodies,
  cleanupTempDirs,
  cliEnv,
  everythingWritten,
  gdn,
  makeTempDir,
  serverModel,
  textOf,
} from './helpers.ts';

const coreIndex = resolve(import.meta.dir, '..', '..', 'core', 'src', 'index.ts');
let bed: OAuthTestbed;

beforeAll(async () => {
  bed = await startOAuthTestbed('gdn-oauth-run-server-');
});
afterAll(async () => {
  await bed.close();
  await cleanupTempDirs();
});

/** A swarm bundle whose tool `api` asks for the token of OAuthApp/github and calls the server's userinfo. */
function writeBundle(dir: string, modelUrl: string): void {
  mkdirSync(join(dir, 'tools'));
  writeFileSync(
    join(dir, 'tools', 'api.ts'),
    `import { useOAuthService } from ${JSON.stringify(coreIndex)};
const token = (ctx) => useOAuthService().getAccessToken({ caller: ctx, oauthAppRef: 'OAuthApp/github' });
export const handlers = {
  async whoami(ctx) {
    const result = await token(ctx);
    if (result.status !== 'ready') return result;
    const response = await fetch(${JSON.stringify(`${bed.server.issuer}/me`)}, {
      headers: { authorization: 'Bearer ' + result.accessToken },
    });
    return { status: response.status, user: (await response.json()).sub };
  },
  // An app nobody authorized yet: the answer says how (and the guidance block repeats it each step).
  other: (ctx) => useOAuthService().getAccessToken({ caller: ctx, oauthAppRef: 'OAuthApp/gitlab' }),
  // A careless tool: it hands the token itself back, and logs it.
  async leak(ctx) {
    const result = await token(ctx);
    ctx.logger.info('the token is ' + result.accessToken);
    console.error('leaked ' + result.accessToken);
    return { token: result.accessToken };
  },
};
`,
  );
  writeFileSync(
    join(dir, 'goondan.yaml'),
    `${bed.githubAppYaml()}---
apiVersion: goondan.ai/v1
kind: OAuthApp
metadata: { name: gitlab }
spec:
  issuer: ${bed.server.issuer}
  clientId: ${bed.server.clientId}
  clientSecret: { valueFrom: { env: OAUTH_CLIENT_SECRET } }
  scopes: [openid, profile]
  subjectMode: global
  flow: authorizationCode
  redirectUri: ${bed.redirectUri}
---
apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: api }
spec:
  entry: ./tools/api.ts
  exports:
    - { name: whoami, description: Who the token belongs to., parameters: { type: object } }
    - { name: leak, description: Returns the token (careless)., parameters: { type: object } }
    - { name: other, description: Asks for a token of an app not authorized yet., parameters: { type: object } }
---
apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: solo }
spec:
  entryAgent: Agent/helper
  agents: [Agent/helper]
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: helper }
spec:
  modelConfig: { modelRef: Model/main }
  prompt: { system: Use the api tools. }
  tools: [Tool/api]
  extensions: [Extension/oauth-guidance]
---
${serverModel(modelUrl)}`,
  );
}

describe('gdn run with an OAuth-protected tool', () => {
  test('the agent process gets the token from the host over IPC; no token in any file, model request or output', async () => {
    const model = await startOpenAICompatibleServer({
      responses: [
        {
          text: 'Checking.',
          toolCalls: [
            { id: 'call_who', name: 'api__whoami', arguments: '{}' },
            { id: 'call_leak', name: 'api__leak', arguments: '{}' },
            { id: 'call_other', name: 'api__other', arguments: '{}' },
          ],
        },
        { text: 'Done.' },
      ],
    });
    try {
      const dir = await makeTempDir('gdn-oauth-run-');
      writeBundle(dir, model.url);
      const key = freshKey();
      const env = cliEnv({ GOONDAN_OAUTH_KEY: key, OAUTH_CLIENT_SECRET: bed.server.clientSecret });

      // The grant is made beforehand, as gdn auth login would, in the bundle's store.
      const store = new OAuthStore(join(dir, '.goondan', 'oauth.db'), resolveOAuthKey({ GOONDAN_OAUTH_KEY: key }));
      const planted = await plantGrant(store);
      store.close();

      const result = await gdn(['run', '--bundle', dir, '--input', 'Who am I?'], { env });
      expect(result.stderr).not.toContain('[error]');
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toBe('Checking.\nDone.\n');
      const bodies = chatBodies(model.requests);
      const toolResults = bodies[1]!.messages.filter((message) => message.role === 'tool').map(textOf);
      expect(toolResults[0]).toContain('"user":"ada"');
      expect(toolResults[0]).toContain('"status":200');
      expect(toolResults[1]).toContain('token');
      const required = JSON.parse(toolResults[2]!).output ?? JSON.parse(toolResults[2]!);
      expect(required.status).toBe('authorization_required');
      // The guidance block of the second step (asked over IPC) names the same pending authorization.
      const lastInput = textOf(bodies[1]!.messages.at(-1)!);
      expect(lastInput).toContain('Authorization pending');
      expect(lastInput).toContain(required.authSessionId);
      expect(lastInput).toContain('"oauthApp": "OAuthApp/gitlab"');

      const everything = [everythingWritten(dir), JSON.stringify(model.requests), result.stdout, result.stderr].join(
        '\n',
      );
      expect(everything).toContain('SQLite format 3');
      // The careless tool's log line was printed, masked (its process's output passes through the host).
      expect(result.stderr).toContain('the token is ');
      for (const [name, secret] of Object.entries(planted)) {
        expect({ name, found: everything.includes(secret) }).toEqual({ name, found: false });
      }
    } finally {
      await model.close();
    }
  }, 120_000);
});

/** Authorizes OAuthApp/github against the test server through a host on `store`; returns the stored tokens. */
async function plantGrant(store: OAuthStore): Promise<{ accessToken: string; refreshToken: string }> {
  const host = createOAuthHost({ bundle: oauthBundle({ github: bed.appSpec('authorizationCode') }), store });
  await bed.authorize(host, { agentName: 'helper', instanceKey: 'default' });
  const { tokens } = store.getGrant('OAuthApp/github', 'global')!;
  return { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken! };
}
