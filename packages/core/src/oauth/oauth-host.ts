import * as oauth from 'oauth4webapi';
import type { AgentEvent } from '../agent/agent-event.ts';
import { newId } from '../agent/agent-event.ts';
import { resolveValueSource } from '../config/resolve-value-source.ts';
import type { Bundle } from '../config/resources.ts';
import { GoondanError } from '../errors/goondan-error.ts';
import type { ObjectRef } from '../types.ts';
import { completeAuthorization } from './complete-authorization.ts';
import { type OAuthEndpoints, resolveOAuthEndpoints } from './oauth-endpoints.ts';
import { checkScopes, findOAuthApp, subjectOf } from './oauth-request-checks.ts';
import type { OAuthStore, StoredSession } from './oauth-store.ts';
import type { OAuthCaller, OAuthService, OAuthTokenRequest, OAuthTokenResult } from './oauth-types.ts';
import { type DevicePollRetry, pollDeviceAuthorization } from './poll-device-authorization.ts';
import { refreshGrant } from './refresh-grant.ts';
import { authorizationRequired, startAuthorization } from './start-authorization.ts';

export const AUTH_GRANTED = 'auth.granted';

/** The process that owns the OAuth store (docs/oauth.md#one-writer): tokens, authorizations, logout. */
export interface OAuthHost extends OAuthService {
  /** Handles a loopback callback URL; throws a coded error (nothing stored) or returns the completed session. */
  completeAuthorization(callbackUrl: string): Promise<StoredSession>;
  /** Starts (or shows again) an authorization for `gdn auth login`; `done` settles when it is granted. */
  login(options: {
    oauthAppRef: ObjectRef;
    caller?: OAuthCaller;
  }): Promise<{ session: StoredSession; done: Promise<void> }>;
  /** Deletes the grant of (app, subject) and revokes its tokens at the server when it can; true if one existed. */
  logout(options: { oauthAppRef: ObjectRef; caller?: OAuthCaller }): Promise<boolean>;
  store: OAuthStore;
}

/**
 * The OAuth host over `store` for the apps of `bundle`. `onGranted` receives the `auth.granted` event for the
 * agent instance that asked (spec v1 §12.6.4.5); the event says which app, never a token.
 */
export function createOAuthHost(options: {
  bundle: Bundle;
  store: OAuthStore;
  now?: () => number;
  /** The bound of each request to an authorization server; default GOONDAN_OAUTH_TIMEOUT_MS, else 30 s. */
  requestTimeoutMs?: number;
  onGranted?: (event: AgentEvent, requester: { agentName: string; instanceKey: string }) => void;
  /** Told of every device-code poll that failed for a reason that may pass and is retried (a 5xx, no answer). */
  onDevicePollRetry?: (retry: DevicePollRetry) => void;
}): OAuthHost {
  const { bundle, store } = options;
  const now = options.now ?? Date.now;
  const endpointsByApp = new Map<string, Promise<OAuthEndpoints>>();
  const devicePolls = new Map<string, Promise<void>>();
  const endpointsOf = async (key: string) => {
    const { spec } = findOAuthApp(bundle, key);
    let endpoints = endpointsByApp.get(key);
    if (!endpoints) {
      const clientSecret = spec.clientSecret ? resolveValueSource(spec.clientSecret) : undefined;
      endpoints = resolveOAuthEndpoints({
        spec,
        clientSecret,
        ...(options.requestTimeoutMs ? { timeoutMs: options.requestTimeoutMs } : {}),
      });
      endpoints.catch(() => endpointsByApp.delete(key));
      endpointsByApp.set(key, endpoints);
    }
    return { endpoints: await endpoints, spec };
  };
  const granted = (session: StoredSession) => {
    if (!session.requester || !options.onGranted) return;
    const event: AgentEvent = {
      id: newId('evt'),
      type: AUTH_GRANTED,
      input: `Authorization for ${session.app} was granted; retry what needed it.`,
      source: { kind: 'system', name: 'oauth' },
      data: { oauthApp: session.app, authSessionId: session.id },
      createdAt: new Date(now()).toISOString(),
    };
    try {
      options.onGranted(event, session.requester);
    } catch {
      // Delivering the notice is best effort; the grant is stored and the next call finds it.
    }
  };
  const watchDevice = (session: StoredSession): Promise<void> => {
    let polling = devicePolls.get(session.id);
    if (!polling) {
      polling = endpointsOf(session.app)
        .then(({ endpoints }) =>
          pollDeviceAuthorization({
            store,
            endpoints,
            session,
            ...(options.onDevicePollRetry ? { onRetry: options.onDevicePollRetry } : {}),
          }),
        )
        .then(granted)
        .finally(() => devicePolls.delete(session.id));
      polling.catch(() => {});
      devicePolls.set(session.id, polling);
    }
    return polling;
  };
  const authorize = async (key: string, subject: string, caller: OAuthCaller | undefined) => {
    const open = store.openSession(key, subject, now());
    const app = findOAuthApp(bundle, key);
    const requester = caller ? { agentName: caller.agentName, instanceKey: caller.instanceKey } : null;
    const session =
      open ??
      (await startAuthorization({
        store,
        endpoints: (await endpointsOf(key)).endpoints,
        app,
        subject,
        requester,
        now: now(),
      }));
    const done = session.flow === 'deviceCode' ? watchDevice(session) : Promise.resolve();
    return { session, done };
  };

  return {
    store,
    async getAccessToken(request: OAuthTokenRequest): Promise<OAuthTokenResult> {
      try {
        const app = findOAuthApp(bundle, request.oauthAppRef);
        const subject = subjectOf(app.spec, request.caller);
        const scopes = checkScopes(app.spec, app.key, request.scopes);
        let grant = store.getGrant(app.key, subject);
        if (grant && scopes.every((scope) => grant!.scopes.includes(scope))) {
          const minTtlMs = Math.max(0, request.minTtlSeconds ?? 60) * 1000;
          const expiresAt = grant.tokens.expiresAt;
          if (expiresAt !== null && expiresAt - now() < minTtlMs) {
            try {
              grant = await refreshGrant({
                store,
                endpoints: (await endpointsOf(app.key)).endpoints,
                app: app.key,
                subject,
                seen: grant,
              });
            } catch (error) {
              if (!(error instanceof GoondanError) || error.code !== 'E_OAUTH_GRANT_REVOKED') throw error;
              const { session } = await authorize(app.key, subject, request.caller);
              return authorizationRequired(session, {
                code: error.code,
                message: error.message,
                suggestion: error.suggestion,
              });
            }
          }
          return {
            status: 'ready',
            accessToken: grant.tokens.accessToken,
            tokenType: grant.tokens.tokenType,
            expiresAt: grant.tokens.expiresAt === null ? null : new Date(grant.tokens.expiresAt).toISOString(),
            scopes: grant.scopes,
          };
        }
        const { session } = await authorize(app.key, subject, request.caller);
        return authorizationRequired(session);
      } catch (error) {
        if (!(error instanceof GoondanError)) throw error;
        return { status: 'error', error: { code: error.code, message: error.message, suggestion: error.suggestion } };
      }
    },
    async pendingAuthorizations(caller) {
      return store.pendingSessionsOf(caller, now()).map((session) => {
        const { status: _status, ...shown } = authorizationRequired(session) as Extract<
          OAuthTokenResult,
          { status: 'authorization_required' }
        >;
        return { oauthApp: session.app, ...shown };
      });
    },
    async completeAuthorization(callbackUrl) {
      const session = await completeAuthorization({ store, callbackUrl, endpointsOf, now: now() });
      granted(session);
      return session;
    },
    async login({ oauthAppRef, caller }) {
      const app = findOAuthApp(bundle, oauthAppRef);
      return authorize(app.key, subjectOf(app.spec, caller), caller);
    },
    async logout({ oauthAppRef, caller }) {
      const app = findOAuthApp(bundle, oauthAppRef);
      const subject = subjectOf(app.spec, caller);
      const grant = store.getGrant(app.key, subject);
      store.dropSessions(app.key, subject, now());
      if (!grant) return false;
      store.deleteGrant(app.key, subject);
      await revokeQuietly(
        await endpointsOf(app.key).then((found) => found.endpoints),
        grant.tokens.refreshToken ?? grant.tokens.accessToken,
      );
      return true;
    },
  };
}

async function revokeQuietly(endpoints: OAuthEndpoints, token: string): Promise<void> {
  if (!endpoints.server.revocation_endpoint) return;
  try {
    const response = await oauth.revocationRequest(
      endpoints.server,
      endpoints.client,
      endpoints.clientAuth,
      token,
      endpoints.options,
    );
    await oauth.processRevocationResponse(response);
  } catch {
    // The grant is gone here either way; a server that cannot revoke lets the token expire.
  }
}
