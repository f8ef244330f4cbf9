import { GoondanError } from '../errors/goondan-error.ts';
import type { OAuthWireRequest } from '../oauth/oauth-ipc-client.ts';
import type { OAuthService } from '../oauth/oauth-types.ts';
import type { JsonValue } from '../types.ts';

/**
 * The orchestrator's answer to an agent process's `oauth.token` query (docs/oauth.md#one-writer): the host's
 * getAccessToken, with the caller taken from the process that asked (never from the message), so one agent cannot
 * ask in another's name; only the user id comes from the request.
 */
export async function answerOAuthToken(options: {
  service: OAuthService | undefined;
  from: { agent: string; instanceKey: string };
  data: JsonValue | undefined;
  /** `oauth.pending`: the authorizations the asking instance waits for, instead of a token. */
  pending?: boolean;
}): Promise<JsonValue> {
  if (options.pending) {
    if (!options.service) return [];
    const caller = { agentName: options.from.agent, instanceKey: options.from.instanceKey };
    return (await options.service.pendingAuthorizations(caller)) as unknown as JsonValue;
  }
  if (!options.service) {
    throw new GoondanError('E_OAUTH_UNAVAILABLE', 'The process running this swarm opened no OAuth host.', {
      suggestion: 'Declare the OAuthApp in the bundle; gdn run, gdn chat and gdn serve open the host when one exists.',
    });
  }
  const request = (options.data ?? {}) as Partial<OAuthWireRequest>;
  if (typeof request.oauthAppRef !== 'string') {
    throw new GoondanError('E_OAUTH_APP_UNKNOWN', 'The token request names no OAuthApp.');
  }
  const result = await options.service.getAccessToken({
    oauthAppRef: request.oauthAppRef,
    ...(Array.isArray(request.scopes) ? { scopes: request.scopes.map(String) } : {}),
    ...(typeof request.minTtlSeconds === 'number' ? { minTtlSeconds: request.minTtlSeconds } : {}),
    caller: {
      agentName: options.from.agent,
      instanceKey: options.from.instanceKey,
      ...(typeof request.userId === 'string' && request.userId ? { userId: request.userId } : {}),
    },
  });
  return result as unknown as JsonValue;
}
