import { randomBytes } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { GoondanError } from '../errors/goondan-error.ts';
import { describe, isTimeout, type OAuthEndpoints, timedOut } from './oauth-endpoints.ts';
import type { OAuthStore, StoredSession } from './oauth-store.ts';
import type { OAuthAppResourceSpec, OAuthErrorInfo, OAuthTokenResult } from './oauth-types.ts';

/** How long an authorization link stays usable. */
export const SESSION_TTL_MS = 10 * 60 * 1000;

/**
 * Spec v1 §12.6.4.1–2 and §12.6.5: a new AuthSession, its secrets (state, PKCE verifier or device code) sealed in
 * the store. The authorization URL carries code_challenge, code_challenge_method=S256 and state.
 */
export async function startAuthorization(options: {
  store: OAuthStore;
  endpoints: OAuthEndpoints;
  app: { key: string; spec: OAuthAppResourceSpec };
  subject: string;
  requester: StoredSession['requester'];
  now: number;
}): Promise<StoredSession> {
  const { store, endpoints, app, subject, requester, now } = options;
  const id = `auth_${randomBytes(12).toString('base64url')}`;
  const scope = app.spec.scopes.join(' ');
  const base = { id, app: app.key, subject, flow: app.spec.flow, scopes: app.spec.scopes, requester };
  if (app.spec.flow === 'deviceCode') {
    let answer: oauth.DeviceAuthorizationResponse;
    try {
      const response = await oauth.deviceAuthorizationRequest(
        endpoints.server,
        endpoints.client,
        endpoints.clientAuth,
        new URLSearchParams({ scope }),
        endpoints.options,
      );
      answer = await oauth.processDeviceAuthorizationResponse(endpoints.server, endpoints.client, response);
    } catch (cause) {
      if (isTimeout(cause)) {
        throw timedOut({
          cause,
          endpoint: endpoints.server.device_authorization_endpoint,
          timeoutMs: endpoints.timeoutMs,
          what: `Device authorization for ${app.key} failed`,
        });
      }
      throw new GoondanError('E_OAUTH_SERVER', `Device authorization for ${app.key} failed: ${describe(cause)}`, {
        cause,
      });
    }
    const session = {
      ...base,
      shown: {
        userCode: answer.user_code,
        verificationUri: answer.verification_uri,
        message: `Open ${answer.verification_uri} and enter the code ${answer.user_code} to authorize ${app.key}.`,
      },
      secret: { deviceCode: answer.device_code },
      expiresAt: Math.min(now + answer.expires_in * 1000, now + SESSION_TTL_MS),
      intervalSeconds: answer.interval ?? 5,
    };
    store.saveSession(session);
    return { ...session, usedAt: null };
  }
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(endpoints.server.authorization_endpoint!);
  const params = {
    ...app.spec.authorizationParams,
    client_id: app.spec.clientId,
    redirect_uri: app.spec.redirectUri!,
    response_type: 'code',
    scope,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
  };
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  const session = {
    ...base,
    shown: { message: `Open the link to authorize ${app.key}; this request waits for it.` },
    // The URL carries the state, so it is sealed with it.
    secret: { state, codeVerifier, authorizationUrl: url.href },
    expiresAt: now + SESSION_TTL_MS,
    intervalSeconds: 0,
  };
  store.saveSession(session);
  return { ...session, usedAt: null };
}

/** The `authorization_required` result of a session: only what a person needs, nothing secret. */
export function authorizationRequired(session: StoredSession, reason?: OAuthErrorInfo): OAuthTokenResult {
  return {
    status: 'authorization_required',
    authSessionId: session.id,
    ...(session.secret.authorizationUrl ? { authorizationUrl: session.secret.authorizationUrl } : {}),
    ...(session.shown.userCode ? { userCode: session.shown.userCode } : {}),
    ...(session.shown.verificationUri ? { verificationUri: session.shown.verificationUri } : {}),
    expiresAt: new Date(session.expiresAt).toISOString(),
    message: session.shown.message ?? 'Authorization is required.',
    ...(reason ? { reason } : {}),
  };
}
