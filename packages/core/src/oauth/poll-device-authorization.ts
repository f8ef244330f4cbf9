import * as oauth from 'oauth4webapi';
import { GoondanError } from '../errors/goondan-error.ts';
import { describe, isTimeout, type OAuthEndpoints, oauthErrorOf, timedOut } from './oauth-endpoints.ts';
import type { OAuthStore, StoredSession } from './oauth-store.ts';
import { scopesOf, tokensOf } from './token-answer.ts';

/**
 * Spec v1 §12.6.5 (RFC 8628 §3.4–3.5): polls the token endpoint with the session's device code until the person
 * approves, waiting the server's interval (5 s when it names none, 5 s more on `slow_down`). On approval the grant
 * is saved and the session consumed; a refusal or expiry spends the session, throws a coded error and stores no
 * grant. Polling stops when the session is dropped (logout) or used.
 */
export async function pollDeviceAuthorization(options: {
  store: OAuthStore;
  endpoints: OAuthEndpoints;
  session: StoredSession;
  signal?: AbortSignal;
}): Promise<StoredSession> {
  const { store, endpoints, session } = options;
  let intervalMs = Math.max(1, session.intervalSeconds) * 1000;
  for (;;) {
    if (Date.now() >= session.expiresAt) {
      throw new GoondanError('E_OAUTH_SESSION_EXPIRED', `Authorization ${session.id} expired before it was approved.`);
    }
    options.signal?.throwIfAborted();
    await Bun.sleep(intervalMs);
    // A session dropped meanwhile (logout) or completed elsewhere is not polled any further.
    if (store.session(session.id)?.usedAt !== null) {
      throw new GoondanError('E_OAUTH_CALLBACK_INVALID', `Authorization ${session.id} is no longer pending.`);
    }
    let answer: oauth.TokenEndpointResponse;
    try {
      const response = await oauth.deviceCodeGrantRequest(
        endpoints.server,
        endpoints.client,
        endpoints.clientAuth,
        session.secret.deviceCode!,
        endpoints.options,
      );
      answer = await oauth.processDeviceCodeResponse(endpoints.server, endpoints.client, response);
    } catch (cause) {
      const error = oauthErrorOf(cause);
      if (error === 'authorization_pending') continue;
      if (error === 'slow_down') {
        intervalMs += 5000;
        continue;
      }
      const code = error === 'expired_token' ? 'E_OAUTH_SESSION_EXPIRED' : 'E_OAUTH_EXCHANGE_FAILED';
      // Refused for good (access_denied, expired_token) or no answer: the session is spent, so the next ask starts
      // afresh rather than waiting on a server that hung.
      store.consumeSession(session.id, Date.now());
      if (isTimeout(cause)) {
        throw timedOut({
          cause,
          endpoint: endpoints.server.token_endpoint,
          timeoutMs: endpoints.timeoutMs,
          what: `Device authorization ${session.id} failed`,
        });
      }
      throw new GoondanError(code, `Device authorization ${session.id} failed: ${describe(cause)}`, { cause });
    }
    if (!store.consumeSession(session.id, Date.now())) {
      throw new GoondanError('E_OAUTH_CALLBACK_INVALID', `Authorization ${session.id} was already completed once.`);
    }
    const scopes = scopesOf(answer, session.scopes);
    store.saveGrant({ app: session.app, subject: session.subject, tokens: tokensOf(answer, Date.now()), scopes });
    return session;
  }
}
