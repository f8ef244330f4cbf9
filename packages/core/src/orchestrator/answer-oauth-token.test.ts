import { describe, expect, test } from 'bun:test';
import type { OAuthService, OAuthTokenRequest } from '../oauth/oauth-types.ts';
import { answerOAuthToken } from './answer-oauth-token.ts';

function recordingService(): OAuthService & { asked: OAuthTokenRequest[]; pendingOf: unknown[] } {
  const asked: OAuthTokenRequest[] = [];
  const pendingOf: unknown[] = [];
  return {
    asked,
    pendingOf,
    async getAccessToken(request) {
      asked.push(request);
      return { status: 'error', error: { code: 'E_OAUTH_APP_UNKNOWN', message: 'x', suggestion: 'y' } };
    },
    async pendingAuthorizations(caller) {
      pendingOf.push(caller);
      return [];
    },
  };
}

describe('answerOAuthToken (the host side of oauth.token / oauth.pending)', () => {
  test('the caller is the process that asked, whatever the message says; only the user id is taken from it', async () => {
    const service = recordingService();
    await answerOAuthToken({
      service,
      from: { agent: 'worker', instanceKey: 'k1' },
      data: {
        oauthAppRef: 'OAuthApp/github',
        scopes: ['repo'],
        userId: 'ada',
        caller: { agentName: 'boss', instanceKey: 'other' },
        agentName: 'boss',
      },
    });
    expect(service.asked).toEqual([
      {
        oauthAppRef: 'OAuthApp/github',
        scopes: ['repo'],
        caller: { agentName: 'worker', instanceKey: 'k1', userId: 'ada' },
      },
    ]);
    await answerOAuthToken({ service, from: { agent: 'worker', instanceKey: 'k1' }, data: null, pending: true });
    expect(service.pendingOf).toEqual([{ agentName: 'worker', instanceKey: 'k1' }]);
  });

  test('no host: a token request is E_OAUTH_UNAVAILABLE, and nothing is pending', async () => {
    const from = { agent: 'worker', instanceKey: 'k1' };
    await expect(
      answerOAuthToken({ service: undefined, from, data: { oauthAppRef: 'OAuthApp/github' } }),
    ).rejects.toMatchObject({ code: 'E_OAUTH_UNAVAILABLE' });
    expect(await answerOAuthToken({ service: undefined, from, data: null, pending: true })).toEqual([]);
  });
});
