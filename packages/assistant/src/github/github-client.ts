import { GoondanError, type JsonValue, type OAuthTokenResult, type ToolContext, useOAuthService } from '@goondan/core';
import type { Octokit } from '@octokit/rest';
import { boundedFetch } from '../services/bounded-fetch.ts';
import { serviceCredential } from '../services/service-credential.ts';

export const DEFAULT_GITHUB_API = 'https://api.github.com';
/** A rate-limit wait up to this long is waited out once; a longer one is answered at once (E_SERVICE_RATE_LIMITED). */
export const MAX_RATE_LIMIT_WAIT_SECONDS = 60;
const REQUEST_TIMEOUT_MS = 30_000;
/** The most of one GitHub answer read (a page of 30 issues with long bodies is well under it). */
export const GITHUB_MAX_BYTES = 8 * 1024 * 1024;

/** An Octokit ready for one call, or what a person must do first (an OAuth authorization, safe to show). */
export type GitHubClient =
  | { status: 'ready'; octokit: Octokit; credential: string }
  | Extract<OAuthTokenResult, { status: 'authorization_required' }>;

async function tokenOf(ctx: ToolContext, config: Readonly<Record<string, JsonValue>>) {
  const app = config.oauthAppRef;
  if (typeof app === 'string' && app !== '') {
    const answer = await useOAuthService().getAccessToken({ caller: ctx, oauthAppRef: app });
    if (answer.status === 'error') {
      throw new GoondanError(answer.error.code as never, answer.error.message, { suggestion: answer.error.suggestion });
    }
    if (answer.status === 'authorization_required') return answer;
    return { status: 'ready' as const, token: answer.accessToken, credential: app };
  }
  const credential = serviceCredential({ config, key: 'token', defaultEnv: 'GITHUB_TOKEN', service: 'GitHub' });
  return { status: 'ready' as const, token: credential.value, credential: credential.from };
}

/**
 * An Octokit plugin, put before the retry plugin so its error hook runs first: a failure the bounded fetch coded
 * (E_SERVICE_RESPONSE_TOO_LARGE, which Octokit wraps as status 500) is not sent again. Each retry would read the
 * same megabytes up to the limit and fail the same way, seconds later. `request.retries` is the retry plugin's
 * per-request setting.
 */
function noRetryOfCodedFailures(octokit: {
  hook: { error: (name: 'request', hook: (error: unknown, options: { request?: object }) => never) => void };
}): void {
  octokit.hook.error('request', (error, options) => {
    if ((error as { cause?: unknown } | undefined)?.cause instanceof GoondanError)
      options.request = { ...options.request, retries: 0 };
    throw error;
  });
}

/**
 * Octokit with the retry plugin (a 5xx or a network failure is sent again twice, after 1 s and 4 s; an answer too
 * large is not) and the throttling plugin (GitHub's
 * pacing of writes; a primary or secondary rate limit of at most 60 s is waited out once). The token comes from the
 * Tool's `config.oauthAppRef` (the OAuth host: GitHub's device flow) or `config.token` (a ValueSource, default env
 * GITHUB_TOKEN); `config.baseUrl` points it at GitHub Enterprise (or a fake API in tests).
 */
export async function githubClient(ctx: ToolContext): Promise<GitHubClient> {
  const config = ctx.config;
  const token = await tokenOf(ctx, config);
  if (token.status !== 'ready') return token;
  const baseUrl = typeof config.baseUrl === 'string' && config.baseUrl !== '' ? config.baseUrl : DEFAULT_GITHUB_API;
  const [{ Octokit }, { retry }, { throttling }] = await Promise.all([
    import('@octokit/rest'),
    import('@octokit/plugin-retry'),
    import('@octokit/plugin-throttling'),
  ]);
  const waitOnce = (retryAfter: number, _options: unknown, _octokit: unknown, retryCount: number) =>
    retryCount < 1 && retryAfter <= MAX_RATE_LIMIT_WAIT_SECONDS;
  const Client = Octokit.plugin(noRetryOfCodedFailures, retry, throttling);
  const silent = () => {};
  const octokit = new Client({
    auth: token.token,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    userAgent: 'goondan-assistant',
    request: {
      signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]),
      fetch: boundedFetch({ maxBytes: GITHUB_MAX_BYTES, service: 'GitHub' }),
    },
    retry: { retries: 2 },
    throttle: { onRateLimit: waitOnce, onSecondaryRateLimit: waitOnce },
    log: { debug: silent, info: silent, warn: silent, error: silent },
  });
  return { status: 'ready', octokit: octokit as unknown as Octokit, credential: token.credential };
}
