import { GoondanError } from '@goondan/core';
import type { ConnectorTokenRequest } from './connector-types.ts';

/**
 * How a Connection's connector is named as the requester of an OAuth authorization: `connection:<name>` (an Agent's
 * name cannot hold a colon, so no agent instance is mistaken for it).
 */
export const CONNECTION_REQUESTER = 'connection:';

/** The Connection that asked, or null when an agent instance did. */
export function connectionOfRequester(requester: { agentName: string }): string | null {
  return requester.agentName.startsWith(CONNECTION_REQUESTER)
    ? requester.agentName.slice(CONNECTION_REQUESTER.length)
    : null;
}

function refuse(what: string): never {
  throw new GoondanError('E_OPTIONS_INVALID', `ctx.oauth.getAccessToken: ${what}.`, {
    suggestion: "Pass { oauthAppRef: 'OAuthApp/<name>', scopes?: string[], minTtlSeconds?: number, userId?: string }.",
  });
}

/** A connector's token request as sent over IPC, checked field by field (it comes from the connector's code). */
export function checkConnectorTokenRequest(request: unknown): ConnectorTokenRequest {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) refuse('the request is not an object');
  const { oauthAppRef, scopes, minTtlSeconds, userId } = request as Record<string, unknown>;
  if (typeof oauthAppRef !== 'string' || oauthAppRef.trim() === '') refuse('oauthAppRef must name an OAuthApp');
  if (scopes !== undefined && (!Array.isArray(scopes) || !scopes.every((scope) => typeof scope === 'string')))
    refuse('scopes must be an array of strings');
  if (
    minTtlSeconds !== undefined &&
    (typeof minTtlSeconds !== 'number' || !Number.isFinite(minTtlSeconds) || minTtlSeconds < 0)
  )
    refuse('minTtlSeconds must be a number of seconds, 0 or more');
  if (userId !== undefined && (typeof userId !== 'string' || userId === ''))
    refuse('userId must be a non-empty string');
  return {
    oauthAppRef,
    ...(scopes === undefined ? {} : { scopes: scopes as string[] }),
    ...(minTtlSeconds === undefined ? {} : { minTtlSeconds: minTtlSeconds as number }),
    ...(userId === undefined ? {} : { userId: userId as string }),
  };
}
