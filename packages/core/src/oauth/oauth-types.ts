import type { ObjectRef, ValueSource } from '../types.ts';

/** Whose grant a token belongs to (docs/oauth.md#subjects). */
export type OAuthSubjectMode = 'global' | 'user';
export type OAuthFlow = 'authorizationCode' | 'deviceCode';

/** `spec` of an OAuthApp resource (docs/resources.md#oauthapp). */
export interface OAuthAppResourceSpec {
  /** Issuer for discovery (`/.well-known/openid-configuration`, else RFC 8414); or give `endpoints`. */
  issuer?: string;
  endpoints?: { authorization?: string; token: string; deviceAuthorization?: string; revocation?: string };
  clientId: string;
  clientSecret?: ValueSource;
  scopes: string[];
  subjectMode: OAuthSubjectMode;
  flow: OAuthFlow;
  /** authorizationCode: the loopback address the browser returns to, e.g. http://127.0.0.1:8765/oauth/callback. */
  redirectUri?: string;
  /** Extra authorize parameters, e.g. `{ prompt: consent }` (some servers need it for refresh tokens). */
  authorizationParams?: Record<string, string>;
}

/** Who asks for a token: the agent instance, and for `subjectMode: user` the user (docs/oauth.md#subjects). */
export interface OAuthCaller {
  agentName: string;
  instanceKey: string;
  /** The user id; when absent it is read from the turn's message (`message.metadata.userId`). */
  userId?: string;
  message?: { metadata: Record<string, unknown> };
}

export interface OAuthTokenRequest {
  caller: OAuthCaller;
  oauthAppRef: ObjectRef;
  /** Must be a subset of the app's scopes; default all of them. */
  scopes?: string[];
  /** Refresh first when the token expires sooner than this (default 60). */
  minTtlSeconds?: number;
}

export interface OAuthErrorInfo {
  code: string;
  message: string;
  suggestion: string;
}

/** Spec v1 §12.6.2. Nothing in `authorization_required` or `error` is secret; it may reach the model. */
export type OAuthTokenResult =
  | { status: 'ready'; accessToken: string; tokenType: string; expiresAt: string | null; scopes: string[] }
  | {
      status: 'authorization_required';
      authSessionId: string;
      /** authorizationCode flow. */
      authorizationUrl?: string;
      /** deviceCode flow: the code a person types at `verificationUri`. */
      userCode?: string;
      verificationUri?: string;
      expiresAt: string;
      message: string;
      /** Why a grant that existed is no longer usable (e.g. E_OAUTH_GRANT_REVOKED). */
      reason?: OAuthErrorInfo;
    }
  | { status: 'error'; error: OAuthErrorInfo };

/** An authorization waiting for a person (spec v1 §12.6.6): what a guidance block shows; nothing secret. */
export type OAuthPendingAuthorization = Omit<
  Extract<OAuthTokenResult, { status: 'authorization_required' }>,
  'status' | 'reason'
> & { oauthApp: string };

/** The service tools and extensions reach explicitly (docs/oauth.md): never a ToolContext field. */
export interface OAuthService {
  getAccessToken(request: OAuthTokenRequest): Promise<OAuthTokenResult>;
  /** Authorizations this agent instance asked for that wait for a person (unused, unexpired). */
  pendingAuthorizations(caller: { agentName: string; instanceKey: string }): Promise<OAuthPendingAuthorization[]>;
}
