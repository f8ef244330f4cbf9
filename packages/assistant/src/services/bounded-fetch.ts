import { readBoundedBody } from './read-bounded-body.ts';

/** Statuses whose answer has no body (a Response cannot be made with one). */
const bodiless = new Set([101, 204, 205, 304]);

/**
 * A `fetch` for a service SDK (Octokit, grammY) that reads every answer up to `maxBytes` before the SDK sees it: a
 * larger or endless one is cancelled at the limit and the call fails with E_SERVICE_RESPONSE_TOO_LARGE (as the
 * `cause` of the SDK's own error), so no answer is ever held whole.
 */
export function boundedFetch(options: { maxBytes: number; service: string }): typeof fetch {
  const bounded = async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const response = await fetch(input, init);
    const text = await readBoundedBody({ response, ...options });
    return new Response(bodiless.has(response.status) ? null : text, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
  return bounded as typeof fetch;
}
