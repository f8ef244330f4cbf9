import * as oauth from 'oauth4webapi';
import { GoondanError } from '../errors/goondan-error.ts';
import { describe, isTimeout, type OAuthEndpoints, oauthErrorOf } from './oauth-endpoints.ts';
import type { OAuthStore, StoredSession } from './oauth-store.ts';
import { scopesOf, tokensOf } from './token-answer.ts';

/** The longest wait between two polls while the token endpoint keeps failing (the interval doubles up to it). */
export const DEVICE_POLL_BACKOFF_CAP_MS = 60_000;

/** A poll that failed for a reason that may pass (docs/oauth.md#flows); polling goes on after `nextPollInMs`. */
export interface DevicePollRetry {
  sessionId: string;
  app: string;
  /** What the token endpoint did: `answered HTTP 503 Service Unavailable`, `did not answer within 30000 ms`. */
  failure: string;
  /** Failures in a row, this one included. */
  failures: number;
  nextPollInMs: number;
  /** The retry in one line, for a log. */
  message: string;
}

// RFC 6749 §4.1.2.1's words for "the server cannot answer now", should a token endpoint use them.
const unavailableErrors = new Set(['temporarily_unavailable', 'server_error']);

/**
 * What a failed poll's `cause` says when it may pass, as a phrase after "the token endpoint": an answer that is
 * not OAuth with HTTP status 5xx or 429, an OAuth `temporarily_unavailable` / `server_error` or any OAuth answer
 * with status 429, a network failure (connection refused or reset, DNS), or no answer within `boundMs`.
 * Undefined for a refusal (an OAuth error of 4xx: access_denied, expired_token, invalid_grant, invalid_client) and
 * anything else, which end the authorization.
 */
export function transientPollFailure(cause: unknown, boundMs: number): string | undefined {
  if (isTimeout(cause)) return `did not answer within ${boundMs} ms`;
  if (cause instanceof oauth.ResponseBodyError) {
    if (cause.status === 429 || unavailableErrors.has(cause.error))
      return `answered HTTP ${cause.status} (${describe(cause)})`;
    return undefined;
  }
  if (cause instanceof oauth.OperationProcessingError && cause.cause instanceof Response) {
    const { status, statusText } = cause.cause;
    if (status >= 500 || status === 429) return `answered HTTP ${status}${statusText ? ` ${statusText}` : ''}`;
    return undefined;
  }
  const network = networkFailure(cause);
  return network ? `could not be reached (${network})` : undefined;
}

/**
 * The error code and words of a network failure of fetch: Bun's TypeError carries `code` (ECONNREFUSED,
 * ECONNRESET, ConnectionClosed, ...), undici's `fetch failed` carries it in `cause`. oauth4webapi's own TypeErrors
 * (ERR_INVALID_ARG_*: a misconfigured client) and certificate failures are not network failures that pass.
 */
function networkFailure(cause: unknown): string | undefined {
  if (!(cause instanceof TypeError)) return undefined;
  const inner = (cause as { cause?: unknown }).cause;
  const code = (cause as { code?: unknown }).code ?? (inner as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string') return undefined;
  if (
    !/^(E(CONN|NET|HOST|PIPE|TIMEDOUT|AI_AGAIN|NOTFOUND)|Connection|FailedToOpenSocket|UND_ERR_(SOCKET|CONNECT))/.test(
      code,
    )
  )
    return undefined;
  return cause.message.startsWith(code) ? cause.message : `${code}: ${cause.message}`;
}

/** The wait before the next poll after `failures` transient failures in a row: the interval doubled each time, capped. */
export function pollDelayMs(intervalMs: number, failures: number): number {
  if (failures === 0) return intervalMs;
  return Math.max(intervalMs, Math.min(intervalMs * 2 ** failures, DEVICE_POLL_BACKOFF_CAP_MS));
}

/**
 * Spec v1 §12.6.5 (RFC 8628 §3.4–3.5): polls the token endpoint with the session's device code until the person
 * approves, waiting the server's interval (5 s when it names none, 5 s more on `slow_down`). On approval the grant
 * is saved and the session consumed; a refusal spends the session, throws a coded error and stores no grant.
 * A failure that may pass (a 5xx or 429 answer, a network error, a poll with no answer in time: RFC 8628 §3.5 asks
 * to back off on a timeout) is retried, the wait doubled each time up to DEVICE_POLL_BACKOFF_CAP_MS, and reported to
 * `onRetry`. No poll outlasts the session: its request is bounded by the time left, and the session's expiry ends
 * the polling with E_OAUTH_SESSION_EXPIRED naming the last failure. Polling stops when the session is dropped
 * (logout) or used.
 */
export async function pollDeviceAuthorization(options: {
  store: OAuthStore;
  endpoints: OAuthEndpoints;
  session: StoredSession;
  signal?: AbortSignal;
  onRetry?: (retry: DevicePollRetry) => void;
}): Promise<StoredSession> {
  const { store, endpoints, session } = options;
  const tokenEndpoint = endpoints.server.token_endpoint ?? 'the token endpoint';
  let intervalMs = Math.max(1, session.intervalSeconds) * 1000;
  let failures = 0;
  let lastFailure: string | undefined;
  for (;;) {
    options.signal?.throwIfAborted();
    const left = session.expiresAt - Date.now();
    if (left <= 0) throw expired(session, tokenEndpoint, lastFailure, failures);
    await Bun.sleep(Math.min(pollDelayMs(intervalMs, failures), left));
    if (Date.now() >= session.expiresAt) continue;
    // A session dropped meanwhile (logout) or completed elsewhere is not polled any further.
    if (store.session(session.id)?.usedAt !== null) {
      throw new GoondanError('E_OAUTH_CALLBACK_INVALID', `Authorization ${session.id} is no longer pending.`);
    }
    // One poll waits no longer than the request bound, nor past the session's expiry.
    const boundMs = Math.max(1, Math.min(endpoints.timeoutMs, session.expiresAt - Date.now()));
    const signal = () =>
      options.signal ? AbortSignal.any([AbortSignal.timeout(boundMs), options.signal]) : AbortSignal.timeout(boundMs);
    let answer: oauth.TokenEndpointResponse;
    try {
      const response = await oauth.deviceCodeGrantRequest(
        endpoints.server,
        endpoints.client,
        endpoints.clientAuth,
        session.secret.deviceCode!,
        { ...endpoints.options, signal },
      );
      answer = await oauth.processDeviceCodeResponse(endpoints.server, endpoints.client, response);
    } catch (cause) {
      if (options.signal?.aborted) throw options.signal.reason;
      const error = oauthErrorOf(cause);
      if (error === 'authorization_pending' || error === 'slow_down') {
        if (error === 'slow_down') intervalMs += 5000;
        failures = 0;
        lastFailure = undefined;
        continue;
      }
      const transient = transientPollFailure(cause, boundMs);
      if (transient !== undefined) {
        failures += 1;
        lastFailure = transient;
        report(options.onRetry, session, tokenEndpoint, transient, failures, pollDelayMs(intervalMs, failures));
        continue;
      }
      const code = error === 'expired_token' ? 'E_OAUTH_SESSION_EXPIRED' : 'E_OAUTH_EXCHANGE_FAILED';
      // Refused for good (access_denied, expired_token, invalid_grant, invalid_client): the session is spent, so the
      // next ask starts afresh.
      store.consumeSession(session.id, Date.now());
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

function report(
  onRetry: ((retry: DevicePollRetry) => void) | undefined,
  session: StoredSession,
  tokenEndpoint: string,
  failure: string,
  failures: number,
  nextPollInMs: number,
): void {
  if (!onRetry) return;
  const seconds = Number.parseFloat((nextPollInMs / 1000).toFixed(1));
  const message = `Device authorization ${session.id} of ${session.app}: ${tokenEndpoint} ${failure}; polling again in ${seconds} s (${failures} failure${failures === 1 ? '' : 's'} in a row; the code expires at ${new Date(session.expiresAt).toISOString()}).`;
  try {
    onRetry({ sessionId: session.id, app: session.app, failure, failures, nextPollInMs, message });
  } catch {
    // Reporting is best effort; polling goes on.
  }
}

/** The session ran out before it was approved; when the token endpoint was failing then, the error says so. */
function expired(session: StoredSession, tokenEndpoint: string, lastFailure: string | undefined, failures: number) {
  if (lastFailure === undefined)
    return new GoondanError('E_OAUTH_SESSION_EXPIRED', `Authorization ${session.id} expired before it was approved.`);
  return new GoondanError(
    'E_OAUTH_SESSION_EXPIRED',
    `Device authorization ${session.id} expired while ${tokenEndpoint} kept failing (${failures} poll${failures === 1 ? '' : 's'} in a row; the last one: it ${lastFailure}). Nothing was stored.`,
    {
      suggestion: `Check that the authorization server of ${session.app} is up and reachable (its issuer or endpoints, the network), then ask for a token again (gdn auth login ${session.app}) for a new code.`,
    },
  );
}
