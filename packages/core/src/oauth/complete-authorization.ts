import * as oauth from 'oauth4webapi';
import { GoondanError } from '../errors/goondan-error.ts';
import { describe, isTimeout, type OAuthEndpoints, timedOut } from './oauth-endpoints.ts';
import type { OAuthStore, StoredSession } from './oauth-store.ts';
import type { OAuthAppResourceSpec } from './oauth-types.ts';
import { scopesOf, tokensOf } from './token-answer.ts';

/**
 * Spec v1 §12.6.4.3–4: the loopback callback. The state must name a stored session (else a forged callback),
 * that session must be unexpired and unused (one-time: it is consumed before the exchange, so a replay fails even
 * while the first exchange runs), and the exchange uses the session's stored PKCE verifier. Any failure throws a
 * coded error and stores nothing; on success the grant is saved and the session returned (for auth.granted).
 */
export async function completeAuthorization(options: {
  store: OAuthStore;
  callbackUrl: string;
  endpointsOf: (app: string) => Promise<{ endpoints: OAuthEndpoints; spec: OAuthAppResourceSpec }>;
  now: number;
}): Promise<StoredSession> {
  const { store, now } = options;
  const url = new URL(options.callbackUrl);
  const state = url.searchParams.get('state');
  const session = state ? store.sessionByState(state) : undefined;
  if (!session || session.secret.state !== state) {
    throw new GoondanError('E_OAUTH_CALLBACK_INVALID', 'The callback names no authorization this host started.');
  }
  if (session.usedAt !== null) {
    throw new GoondanError('E_OAUTH_CALLBACK_INVALID', `Authorization ${session.id} was already completed once.`);
  }
  if (session.expiresAt <= now) {
    throw new GoondanError('E_OAUTH_SESSION_EXPIRED', `Authorization ${session.id} expired before the callback came.`);
  }
  if (!store.consumeSession(session.id, now)) {
    throw new GoondanError('E_OAUTH_CALLBACK_INVALID', `Authorization ${session.id} was already completed once.`);
  }
  const { endpoints, spec } = await options.endpointsOf(session.app);
  let parameters: URLSearchParams;
  try {
    parameters = oauth.validateAuthResponse(endpoints.server, endpoints.client, url, session.secret.state!);
  } catch (cause) {
    throw new GoondanError('E_OAUTH_EXCHANGE_FAILED', `The authorization server refused: ${describe(cause)}`, {
      cause,
    });
  }
  try {
    const response = await oauth.authorizationCodeGrantRequest(
      endpoints.server,
      endpoints.client,
      endpoints.clientAuth,
      parameters,
      spec.redirectUri!,
      session.secret.codeVerifier!,
      endpoints.options,
    );
    const answer = await oauth.processAuthorizationCodeResponse(endpoints.server, endpoints.client, response);
    store.saveGrant({
      app: session.app,
      subject: session.subject,
      tokens: tokensOf(answer, now),
      scopes: scopesOf(answer, session.scopes),
    });
  } catch (cause) {
    if (isTimeout(cause)) {
      throw timedOut({
        cause,
        endpoint: endpoints.server.token_endpoint,
        timeoutMs: endpoints.timeoutMs,
        what: `The token exchange for ${session.app} failed`,
      });
    }
    throw new GoondanError(
      'E_OAUTH_EXCHANGE_FAILED',
      `The token exchange for ${session.app} failed: ${describe(cause)}`,
      {
        cause,
      },
    );
  }
  return session;
}
