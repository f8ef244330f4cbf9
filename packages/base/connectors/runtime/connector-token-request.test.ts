import { describe, expect, test } from 'bun:test';
import { checkConnectorTokenRequest, connectionOfRequester } from './connector-token-request.ts';

describe("a connector's token request", () => {
  test('keeps the fields it knows, checked', () => {
    expect(
      checkConnectorTokenRequest({
        oauthAppRef: 'OAuthApp/github',
        scopes: ['profile'],
        minTtlSeconds: 0,
        userId: 'U1',
      }),
    ).toEqual({ oauthAppRef: 'OAuthApp/github', scopes: ['profile'], minTtlSeconds: 0, userId: 'U1' });
    expect(checkConnectorTokenRequest({ oauthAppRef: 'github', extra: true })).toEqual({ oauthAppRef: 'github' });
  });

  test.each([
    [null, 'the request is not an object'],
    [['OAuthApp/github'], 'the request is not an object'],
    [{}, 'oauthAppRef must name an OAuthApp'],
    [{ oauthAppRef: '  ' }, 'oauthAppRef must name an OAuthApp'],
    [{ oauthAppRef: 'a', scopes: 'profile' }, 'scopes must be an array of strings'],
    [{ oauthAppRef: 'a', scopes: [1] }, 'scopes must be an array of strings'],
    [{ oauthAppRef: 'a', minTtlSeconds: -1 }, 'minTtlSeconds must be'],
    [{ oauthAppRef: 'a', minTtlSeconds: Number.NaN }, 'minTtlSeconds must be'],
    [{ oauthAppRef: 'a', userId: '' }, 'userId must be a non-empty string'],
  ])('refuses %p with E_OPTIONS_INVALID', (request, what) => {
    let thrown: unknown;
    try {
      checkConnectorTokenRequest(request);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: 'E_OPTIONS_INVALID' });
    expect((thrown as Error).message).toContain(what);
  });

  test('a requester named connection:<name> is that Connection; an agent instance is none', () => {
    expect(connectionOfRequester({ agentName: 'connection:slack-desk' })).toBe('slack-desk');
    expect(connectionOfRequester({ agentName: 'helper' })).toBeNull();
  });
});
