import { rememberSecretValue } from '../permissions/secret-registry.ts';
import type { JsonValue } from '../types.ts';
import type { OAuthPendingAuthorization, OAuthService, OAuthTokenRequest, OAuthTokenResult } from './oauth-types.ts';

/** What an agent process sends the host for a token: the request, without the caller's tool context. */
export interface OAuthWireRequest {
  oauthAppRef: string;
  scopes?: string[];
  minTtlSeconds?: number;
  /** The user, for `subjectMode: user` apps: `caller.userId`, else the turn message's `metadata.userId`. */
  userId?: string;
}

/** The request as it crosses the wire: only what the host needs; the caller's agent and instance it knows itself. */
export function toWireRequest(request: OAuthTokenRequest): OAuthWireRequest {
  const fromMessage = request.caller?.message?.metadata?.userId;
  const userId = request.caller?.userId ?? (typeof fromMessage === 'string' ? fromMessage : undefined);
  return {
    oauthAppRef: String(request.oauthAppRef),
    ...(request.scopes ? { scopes: [...request.scopes] } : {}),
    ...(request.minTtlSeconds === undefined ? {} : { minTtlSeconds: request.minTtlSeconds }),
    ...(userId ? { userId } : {}),
  };
}

/**
 * The OAuth service of an agent process (docs/oauth.md#one-writer): every getAccessToken is asked of the host
 * (the orchestrator's process, which owns the store) over IPC. A token received is remembered as a secret at once,
 * so this process's output sinks mask it too.
 */
export function createOAuthIpcClient(ask: {
  token: (request: OAuthWireRequest) => Promise<JsonValue | undefined>;
  /** The host knows who asks (the process), so this query carries nothing. */
  pending: () => Promise<JsonValue | undefined>;
}): OAuthService {
  return {
    async getAccessToken(request) {
      const result = (await ask.token(toWireRequest(request))) as unknown as OAuthTokenResult;
      if (result.status === 'ready') rememberSecretValue(result.accessToken);
      return result;
    },
    async pendingAuthorizations() {
      return ((await ask.pending()) ?? []) as unknown as OAuthPendingAuthorization[];
    },
  };
}
