import * as oauth from 'oauth4webapi';
import { GoondanError } from '../errors/goondan-error.ts';
import type { OAuthAppResourceSpec } from './oauth-types.ts';

/** What oauth4webapi needs to speak to one app's authorization server. */
export interface OAuthEndpoints {
  server: oauth.AuthorizationServer;
  client: oauth.Client;
  clientAuth: oauth.ClientAuth;
  /**
   * Plain http is allowed for loopback servers only (tests, local development). `signal` bounds every request:
   * oauth4webapi sets no timeout, and a server that accepts and never answers would hang the caller for good.
   */
  options: { [oauth.allowInsecureRequests]?: boolean; signal: (url: string) => AbortSignal };
  /** How long one request to the authorization server may take (docs/oauth.md#timeouts). */
  timeoutMs: number;
}

/** The default bound of one request to an authorization server; GOONDAN_OAUTH_TIMEOUT_MS overrides it. */
export const OAUTH_REQUEST_TIMEOUT_MS = 30_000;

/** GOONDAN_OAUTH_TIMEOUT_MS when it is a positive number, else the default. */
export function oauthRequestTimeoutMs(env: Record<string, string | undefined> = process.env): number {
  const value = Number(env.GOONDAN_OAUTH_TIMEOUT_MS);
  return Number.isFinite(value) && value > 0 ? value : OAUTH_REQUEST_TIMEOUT_MS;
}

const discovered = new Map<string, Promise<oauth.AuthorizationServer>>();

/** Endpoints from `spec.endpoints`, or discovered once per issuer (OpenID configuration, else RFC 8414). */
export async function resolveOAuthEndpoints(options: {
  spec: OAuthAppResourceSpec;
  clientSecret: string | undefined;
  timeoutMs?: number;
}): Promise<OAuthEndpoints> {
  const { spec, clientSecret } = options;
  const timeoutMs = options.timeoutMs ?? oauthRequestTimeoutMs();
  const base = spec.issuer ?? spec.endpoints?.token ?? '';
  const requestOptions = {
    ...(isLoopback(base) ? { [oauth.allowInsecureRequests]: true } : {}),
    signal: () => AbortSignal.timeout(timeoutMs),
  };
  const server = spec.endpoints
    ? {
        issuer: spec.issuer ?? new URL(spec.endpoints.token).origin,
        authorization_endpoint: spec.endpoints.authorization,
        token_endpoint: spec.endpoints.token,
        device_authorization_endpoint: spec.endpoints.deviceAuthorization,
        revocation_endpoint: spec.endpoints.revocation,
      }
    : await discover(spec.issuer!, requestOptions, timeoutMs);
  return {
    server,
    client: { client_id: spec.clientId },
    clientAuth: clientSecret ? oauth.ClientSecretPost(clientSecret) : oauth.None(),
    options: requestOptions,
    timeoutMs,
  };
}

function discover(
  issuer: string,
  options: OAuthEndpoints['options'],
  timeoutMs: number,
): Promise<oauth.AuthorizationServer> {
  const cached = discovered.get(issuer);
  if (cached) return cached;
  const url = new URL(issuer);
  const found = (async () => {
    try {
      const response = await oauth.discoveryRequest(url, { ...options, algorithm: 'oidc' });
      return await oauth.processDiscoveryResponse(url, response);
    } catch (cause) {
      // A server that did not answer in time is not asked a second time (that would double the wait).
      if (isTimeout(cause)) throw cause;
      const response = await oauth.discoveryRequest(url, { ...options, algorithm: 'oauth2' });
      return await oauth.processDiscoveryResponse(url, response);
    }
  })().catch((cause) => {
    discovered.delete(issuer);
    const why = isTimeout(cause) ? `no answer within ${timeoutMs} ms` : describe(cause);
    throw new GoondanError('E_OAUTH_SERVER', `Discovery of OAuth issuer ${issuer} failed: ${why}`, { cause });
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

/**
 * An authorization server's answer in a few words: `invalid_grant (grant request is invalid)`, or for an answer
 * that is not OAuth the library's complaint with the HTTP status (`... (unexpected HTTP status code) (HTTP 500)`).
 */
export function describe(cause: unknown): string {
  if (cause instanceof oauth.ResponseBodyError || cause instanceof oauth.AuthorizationResponseError) {
    return `${cause.error}${cause.error_description ? ` (${cause.error_description})` : ''}`;
  }
  const comparison = cause instanceof oauth.OperationProcessingError ? issuerMismatch(cause.cause) : null;
  if (comparison) {
    return `the ID token names the issuer ${JSON.stringify(comparison.named)}, not ${JSON.stringify(comparison.expected)}; set the OAuthApp's spec.issuer to ${JSON.stringify(comparison.named)} if that is its server`;
  }
  if (cause instanceof oauth.OperationProcessingError && cause.cause instanceof Response) {
    return `${cause.message} (HTTP ${cause.cause.status})`;
  }
  return cause instanceof Error ? cause.message : String(cause);
}

/** The ID token's `iss` and the issuer expected, when that is what oauth4webapi refused. */
function issuerMismatch(detail: unknown): { named: unknown; expected: unknown } | null {
  const found = detail as { claim?: unknown; expected?: unknown; claims?: { iss?: unknown } } | null | undefined;
  if (found?.claim !== 'iss') return null;
  return { named: found.claims?.iss, expected: found.expected };
}

/** Whether a request failed because its time (OAuthEndpoints.timeoutMs) ran out. */
export function isTimeout(cause: unknown): boolean {
  return cause instanceof Error && cause.name === 'TimeoutError';
}

/**
 * E_OAUTH_SERVER for a request to `endpoint` that got no answer in time, naming the endpoint and the bound, so a
 * caller tells a hung server from one that refused.
 */
export function timedOut(options: { cause: unknown; endpoint: string | undefined; timeoutMs: number; what: string }) {
  return new GoondanError(
    'E_OAUTH_SERVER',
    `${options.what}: ${options.endpoint ?? 'the authorization server'} did not answer within ${options.timeoutMs} ms.`,
    { cause: options.cause },
  );
}

/** The OAuth `error` of a server's refusal, if it was one. */
export function oauthErrorOf(cause: unknown): string | undefined {
  return cause instanceof oauth.ResponseBodyError || cause instanceof oauth.AuthorizationResponseError
    ? cause.error
    : undefined;
}
