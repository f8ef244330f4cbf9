import {
  GoondanError,
  type OAuthTokenResult,
  rememberSecretValue,
  type ToolContext,
  useOAuthService,
} from '@goondan/core';
import { boundedFetch, shownUrl } from './bounded-fetch.ts';
import type { PimBackend } from './dav-config.ts';

type DavBackend = Extract<PimBackend, { type: 'dav' }>;
type DavClient = Awaited<ReturnType<typeof import('tsdav').createDAVClient>>;

/** An OAuth token was not ready: the tool answers the OAuth service's result (a link or code for a person). */
export class DavAuthorizationPending extends Error {
  constructor(readonly result: Exclude<OAuthTokenResult, { status: 'ready' }>) {
    super('authorization pending');
  }
}

async function authHeaders(ctx: Pick<ToolContext, 'agentName' | 'instanceKey' | 'message'>, backend: DavBackend) {
  const auth = backend.auth;
  if (auth.type === 'basic') {
    // The encoded pair is as secret as the password: masked in every output sink too.
    const encoded = Buffer.from(`${auth.username}:${auth.password}`, 'utf8').toString('base64');
    rememberSecretValue(encoded);
    return { authorization: `Basic ${encoded}` };
  }
  if (auth.type === 'bearer') return { authorization: `Bearer ${auth.token}` };
  const result = await useOAuthService().getAccessToken({
    caller: { agentName: ctx.agentName, instanceKey: ctx.instanceKey, message: ctx.message },
    oauthAppRef: auth.oauthApp,
    ...(auth.scopes ? { scopes: auth.scopes } : {}),
  });
  if (result.status !== 'ready') throw new DavAuthorizationPending(result);
  return { authorization: `${result.tokenType || 'Bearer'} ${result.accessToken}` };
}

/** Failures of the exchange itself: one the bounded fetch kept (the wire's own words) replaces them. */
const davExchangeCodes: ReadonlySet<string> = new Set([
  'E_DAV_UNREACHABLE',
  'E_DAV_UNAUTHORIZED',
  'E_DAV_REQUEST_FAILED',
  'E_DAV_RESPONSE_TOO_LARGE',
]);

/**
 * Any failure of a DAV exchange as a coded error: the wire's own (kept by the fetch) first, then the library's coded
 * one, then what the server answered that the library could not use (an error status, a web page, broken XML), else
 * E_DAV_REQUEST_FAILED with the library's reason.
 */
function codedFailure(
  error: unknown,
  bounded: ReturnType<typeof boundedFetch>,
  url: string,
  service: string,
): GoondanError {
  const kept = bounded.failure();
  if (kept) return kept;
  if (error instanceof GoondanError) return error;
  const unusable = bounded.unusableAnswer();
  if (unusable) return unusable;
  // A URL in the library's words loses any user information (an href a server sent may carry one).
  const reason = (error instanceof Error ? error.message : String(error)).replace(/\/\/[^/@\s]*@/g, '//');
  return new GoondanError(
    'E_DAV_REQUEST_FAILED',
    `The ${service} server at ${shownUrl(url)} gave an answer that could not be used: ${reason.slice(0, 300)}`,
    {
      suggestion: `Check that config.server.url points at the ${service} service (the account's ${service} address, not its web page) and that the server supports ${service} discovery (current-user-principal).`,
    },
  );
}

/**
 * Runs `work` with a tsdav client logged in to the backend's server (CalDAV or CardDAV discovery from its url).
 * Every request goes through a bounded fetch; whatever fails comes out as one coded error.
 */
export async function withDavClient<T>(
  ctx: Pick<ToolContext, 'agentName' | 'instanceKey' | 'message' | 'signal'>,
  backend: DavBackend,
  accountType: 'caldav' | 'carddav',
  work: (client: DavClient, fetch: typeof globalThis.fetch) => Promise<T>,
): Promise<T> {
  const headers = await authHeaders(ctx, backend);
  const service = accountType === 'caldav' ? 'CalDAV' : 'CardDAV';
  const bounded = boundedFetch({
    service,
    server: backend.url,
    headers,
    maxBytes: backend.maxResponseBytes,
    timeoutMs: backend.timeoutMs,
    signal: ctx.signal,
  });
  try {
    const { createDAVClient } = await import('tsdav');
    const client = await createDAVClient({
      serverUrl: backend.url,
      credentials: {},
      authMethod: 'Custom',
      authFunction: async () => ({}),
      defaultAccountType: accountType,
      fetch: bounded.fetch,
    });
    return await work(client, bounded.fetch);
  } catch (error) {
    if (error instanceof GoondanError && !davExchangeCodes.has(error.code)) throw error;
    throw codedFailure(error, bounded, backend.url, service);
  }
}
