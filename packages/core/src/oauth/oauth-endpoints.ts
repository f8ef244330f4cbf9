import * as oauth from 'oauth4webapi';
import { GoondanError } from '../errors/goondan-error.ts';
import type { OAuthAppResourceSpec } from './oauth-types.ts';

/** What oauth4webapi needs to speak to one app's authorization server. */
export interface OAuthEndpoints {
  server: oauth.AuthorizationServer;
  client: oauth.Client;
  clientAuth: oauth.ClientAuth;
  /** Plain http is allowed for loopback servers only (tests, local development). */
  options: { [oauth.allowInsecureRequests]?: boolean };
}

const discovered = new Map<string, Promise<oauth.AuthorizationServer>>();

/** Endpoints from `spec.endpoints`, or discovered once per issuer (OpenID configuration, else RFC 8414). */
export async function resolveOAuthEndpoints(options: {
  spec: OAuthAppResourceSpec;
  clientSecret: string | undefined;
}): Promise<OAuthEndpoints> {
  const { spec, clientSecret } = options;
  const base = spec.issuer ?? spec.endpoints?.token ?? '';
  const requestOptions = isLoopback(base) ? { [oauth.allowInsecureRequests]: true } : {};
  const server = spec.endpoints
    ? {
        issuer: spec.issuer ?? new URL(spec.endpoints.token).origin,
        authorization_endpoint: spec.endpoints.authorization,
        token_endpoint: spec.endpoints.token,
        device_authorization_endpoint: spec.endpoints.deviceAuthorization,
        revocation_endpoint: spec.endpoints.revocation,
      }
    : await discover(spec.issuer!, requestOptions);
  return {
    server,
    client: { client_id: spec.clientId },
    clientAuth: clientSecret ? oauth.ClientSecretPost(clientSecret) : oauth.None(),
    options: requestOptions,
  };
}

function discover(issuer: string, options: OAuthEndpoints['options']): Promise<oauth.AuthorizationServer> {
  const cached = discovered.get(issuer);
  if (cached) return cached;
  const url = new URL(issuer);
  const found = (async () => {
    try {
      const response = await oauth.discoveryRequest(url, { ...options, algorithm: 'oidc' });
      return await oauth.processDiscoveryResponse(url, response);
    } catch {
      const response = await oauth.discoveryRequest(url, { ...options, algorithm: 'oauth2' });
      return await oauth.processDiscoveryResponse(url, response);
    }
  })().catch((cause) => {
    discovered.delete(issuer);
    throw new GoondanError('E_OAUTH_SERVER', `Discovery of OAuth issuer ${issuer} failed: ${describe(cause)}`, {
      cause,
    });
  });
  discovered.set(issuer, found);
  return found;
}

export function isLoopback(address: string): boolean {
  try {
    const host = new URL(address).hostname;
    return host === '127.0.0.1' || host === 'localhost' || host === '[::1]';
  } catch {
    return false;
  }
}

/** An authorization server's answer in a few words: `invalid_grant (grant request is invalid)`. */
export function describe(cause: unknown): string {
  if (cause instanceof oauth.ResponseBodyError || cause instanceof oauth.AuthorizationResponseError) {
    return `${cause.error}${cause.error_description ? ` (${cause.error_description})` : ''}`;
  }
  return cause instanceof Error ? cause.message : String(cause);
}

/** The OAuth `error` of a server's refusal, if it was one. */
export function oauthErrorOf(cause: unknown): string | undefined {
  return cause instanceof oauth.ResponseBodyError || cause instanceof oauth.AuthorizationResponseError
    ? cause.error
    : undefined;
}
