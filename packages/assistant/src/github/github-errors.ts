import { GoondanError } from '@goondan/core/errors';
import { retryAfterSeconds, serviceHttpError, serviceUnreachable } from '../services/service-errors.ts';

interface OctokitFailure {
  status?: number;
  message?: string;
  response?: { headers?: Record<string, string | undefined>; data?: unknown };
}

/** Seconds until GitHub's limit resets (x-ratelimit-reset is epoch seconds), or retry-after. */
function waitOf(headers: Record<string, string | undefined>): number | undefined {
  const reset = Number(headers['x-ratelimit-reset']);
  if (Number.isFinite(reset) && reset > 0) return Math.max(0, Math.ceil(reset - Date.now() / 1000));
  return retryAfterSeconds(headers['retry-after']);
}

/** Octokit's failures as coded errors: rate limits (403 with remaining 0, or 429) with the wait, 401/403, 404, 5xx. */
export function githubError(thrown: unknown, options: { baseUrl: string; credential: string; what: string }): Error {
  if (thrown instanceof GoondanError) return thrown;
  // A coded failure of the bounded fetch (an answer too large), wrapped by Octokit.
  const cause = (thrown as { cause?: unknown } | undefined)?.cause;
  if (cause instanceof GoondanError) return cause;
  const failure = thrown as OctokitFailure;
  // Octokit reports a network failure or a timeout as status 500 without a response.
  if (failure.status === undefined || !failure.response) return serviceUnreachable('GitHub', options.baseUrl, thrown);
  const status = failure.status ?? 0;
  const headers = failure.response?.headers ?? {};
  const message = `${options.what}: ${failure.message ?? ''}`;
  const limited =
    status === 429 ||
    ((status === 403 || status === 429) &&
      (headers['x-ratelimit-remaining'] === '0' || /rate limit/i.test(failure.message ?? '')));
  return serviceHttpError({
    service: 'GitHub',
    status,
    rateLimited: limited,
    body: message,
    retryAfter: limited ? waitOf(headers) : undefined,
    credential: options.credential,
  });
}
