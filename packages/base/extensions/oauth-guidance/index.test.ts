import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import {
  createOAuthHost,
  type ExtensionApi,
  type Message,
  OAuthStore,
  provideOAuthService,
  resolveOAuthKey,
  type StepMiddleware,
} from '@goondan/core';
import { followAuthorization } from '../../../core/test/oauth-authorization-server.ts';
import { freshKey, oauthBundle } from '../../../core/test/oauth-fixture.ts';
import { type OAuthTestbed, startOAuthTestbed } from '../../../core/test/oauth-testbed.ts';
import { register } from './index.ts';

let bed: OAuthTestbed;
beforeAll(async () => {
  bed = await startOAuthTestbed('goondan-oauth-guidance-');
});
afterAll(async () => {
  provideOAuthService(undefined);
  await bed.close();
});

/** The extension's step middleware for agent `assistant`, instance `instanceKey`. */
function stepOf(instanceKey: string): StepMiddleware {
  let step: StepMiddleware | undefined;
  register({
    extensionName: 'oauth-guidance',
    agentName: 'assistant',
    instanceKey,
    config: {},
    logger: console,
    pipeline: { register: (_kind: string, middleware: StepMiddleware) => (step = middleware) },
  } as unknown as ExtensionApi);
  return step!;
}

/** What the model reads in one step through `step`. */
async function modelInput(step: StepMiddleware): Promise<Message[]> {
  const ctx = {
    agentName: 'assistant',
    instanceKey: 'x',
    turnId: 'turn_1',
    stepIndex: 0,
    toolCatalog: [],
    messages: [] as Message[],
    metadata: {},
    next: async () => ({}) as never,
  };
  await step(ctx);
  return ctx.messages;
}

describe('oauth-guidance extension (spec v1 §12.6.6)', () => {
  test('while an authorization the instance asked for is pending, each step ends with a block; nothing secret in it', async () => {
    const bundle = oauthBundle({ github: bed.appSpec('authorizationCode') });
    const store = new OAuthStore(join(bed.dir, 'oauth.db'), resolveOAuthKey({ GOONDAN_OAUTH_KEY: freshKey() }));
    const host = createOAuthHost({ bundle, store });
    provideOAuthService(host);
    const mine = stepOf('default');
    const other = stepOf('someone-else');
    expect(await modelInput(mine)).toEqual([]);

    const pending = await host.getAccessToken({
      caller: { agentName: 'assistant', instanceKey: 'default' },
      oauthAppRef: 'OAuthApp/github',
    });
    if (pending.status !== 'authorization_required') throw new Error(JSON.stringify(pending));
    const [block, ...rest] = await modelInput(mine);
    expect(rest).toEqual([]);
    expect(block!.source).toEqual({ type: 'extension', extensionName: 'oauth-guidance' });
    const text = JSON.stringify(block!.data.content);
    const shown = JSON.parse(/\{[\s\S]*\}/.exec((block!.data.content as { text: string }[])[0]!.text)![0]);
    expect(shown.pendingAuthorizations).toEqual([
      {
        oauthApp: 'OAuthApp/github',
        authSessionId: pending.authSessionId,
        authorizationUrl: pending.authorizationUrl,
        expiresAt: pending.expiresAt,
        message: pending.message,
      },
    ]);
    const session = store.session(pending.authSessionId)!;
    expect(text).not.toContain(session.secret.codeVerifier!);
    expect(await modelInput(other)).toEqual([]);

    await host.completeAuthorization(await followAuthorization(pending.authorizationUrl!, bed.redirectUri));
    expect(await modelInput(mine)).toEqual([]);
    const grant = store.getGrant('OAuthApp/github', 'global')!;
    expect(text).not.toContain(grant.tokens.accessToken);
    store.close();
  }, 60_000);
});
