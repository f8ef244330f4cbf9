import { randomBytes } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { GoondanError } from '../errors/goondan-error.ts';
import { describe, isTimeout, type OAuthEndpoints, oauthErrorOf, timedOut } from './oauth-endpoints.ts';
import type { OAuthStore, StoredGrant } from './oauth-store.ts';
import { scopesOf, tokensOf } from './token-answer.ts';

/** The lease outlives the request it covers (endpoints.timeoutMs) by this much, so no second refresh starts. */
const LEASE_MARGIN_MS = 15_000;
const WAIT_STEP_MS = 50;
/** Refreshes running, per store: two hosts of one process (two bundles) may name the same app and subject. */
const inFlight = new WeakMap<OAuthStore, Map<string, Promise<StoredGrant>>>();
const holder = `${process.pid}-${randomBytes(4).toString('hex')}`;

interface RefreshGrantOptions {
  store: OAuthStore;
  endpoints: OAuthEndpoints;
  app: string;
  subject: string;
  seen: StoredGrant;
}

/**
 * Spec v1 §12.6.3.4: refreshes the grant of (app, subject) once however many callers ask at the same time, in
 * this process (one promise) and across processes sharing the store (a lease row). Servers that rotate refresh
 * tokens accept each one once and revoke the whole grant when one is reused, so two refreshes racing would log
 * the user out. A caller that waited finds the grant's version changed and takes the new token instead.
 * A refusal (`invalid_grant`) deletes the grant and throws E_OAUTH_GRANT_REVOKED.
 */
export function refreshGrant(options: RefreshGrantOptions): Promise<StoredGrant> {
  const key = `${options.app}\u0000${options.subject}`;
  const running = inFlight.get(options.store) ?? new Map<string, Promise<StoredGrant>>();
  inFlight.set(options.store, running);
  const current = running.get(key);
  if (current) return current;
  const started = refreshOnce(options).finally(() => running.delete(key));
  running.set(key, started);
  return started;
}

async function refreshOnce(options: RefreshGrantOptions): Promise<StoredGrant> {
  const { store, app, subject, seen } = options;
  // The refresh request is bounded by the timeout, so a hung server frees the lease and the in-process promise.
  const leaseMs = options.endpoints.timeoutMs + LEASE_MARGIN_MS;
  const deadline = Date.now() + leaseMs;
  while (!store.tryLease({ app, subject, holder, ttlMs: leaseMs })) {
    const current = store.getGrant(app, subject);
    if (!current) throw revoked(app);
    if (current.version !== seen.version) return current;
    if (Date.now() > deadline) {
      throw new GoondanError('E_OAUTH_SERVER', `Another process has been refreshing ${app} for too long.`);
    }
    await Bun.sleep(WAIT_STEP_MS);
  }
  try {
    const current = store.getGrant(app, subject);
    if (!current) throw revoked(app);
    if (current.version !== seen.version) return current;
    const refreshToken = current.tokens.refreshToken;
    if (!refreshToken) throw revoked(app);
    const { endpoints } = options;
    let answer: oauth.TokenEndpointResponse;
    try {
      const response = await oauth.refreshTokenGrantRequest(
        endpoints.server,
        endpoints.client,
        endpoints.clientAuth,
        refreshToken,
        endpoints.options,
      );
      answer = await oauth.processRefreshTokenResponse(endpoints.server, endpoints.client, response);
    } catch (cause) {
      if (isTimeout(cause)) {
        throw timedOut({
          cause,
          endpoint: endpoints.server.token_endpoint,
          timeoutMs: endpoints.timeoutMs,
          what: `Refreshing the token of ${app} failed`,
        });
      }
      if (oauthErrorOf(cause) === 'invalid_grant') {
        store.deleteGrant(app, subject);
        throw revoked(app, cause);
      }
      throw new GoondanError('E_OAUTH_SERVER', `Refreshing the token of ${app} failed: ${describe(cause)}`, { cause });
    }
    const scopes = scopesOf(answer, current.scopes);
    store.saveGrant({ app, subject, tokens: tokensOf(answer, Date.now(), refreshToken), scopes });
    return store.getGrant(app, subject)!;
  } finally {
    store.releaseLease({ app, subject, holder });
  }
}

function revoked(app: string, cause?: unknown): GoondanError {
  return new GoondanError('E_OAUTH_GRANT_REVOKED', `The grant of ${app} was revoked or has expired at the server.`, {
    cause,
  });
}
