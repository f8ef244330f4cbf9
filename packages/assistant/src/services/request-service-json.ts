import { GoondanError } from '@goondan/core/errors';
import { parseServiceJson, readBoundedBody } from './read-bounded-body.ts';
import { originOf, retryAfterSeconds, serviceHttpError, serviceUnreachable } from './service-errors.ts';

/** One JSON request to an outside service. */
export interface ServiceRequest {
  /** Name used in messages ("Tavily"). */
  service: string;
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  timeoutMs: number;
  maxBytes: number;
  signal?: AbortSignal;
  /** Where the credential comes from, for the suggestion of a 401/403. */
  credential?: string;
}

/**
 * A 3xx answer: where it pointed (scheme, host and port only, never a path or query that may carry a key), and that
 * it was not followed. E_SERVICE_RESPONSE_INVALID: the configured address answered something other than the API.
 */
function serviceRedirected(request: ServiceRequest, response: Response): GoondanError {
  const location = response.headers.get('location');
  let target: string | undefined;
  try {
    const origin = location ? new URL(location, request.url).origin : 'null';
    target = origin === 'null' ? undefined : origin;
  } catch {
    target = undefined;
  }
  const from = originOf(request.url);
  const to =
    target === undefined ? 'an address it did not give' : target === from ? `another path on ${target}` : target;
  return new GoondanError(
    'E_SERVICE_RESPONSE_INVALID',
    `${request.service} at ${from} redirected (${response.status}) to ${to}; redirects are not followed${request.credential ? ', so the key goes nowhere else' : ''}.`,
    {
      suggestion:
        target === undefined
          ? `Check the configured baseUrl of ${request.service}: it should be the API's own address.`
          : `Check the configured baseUrl of ${request.service}: if ${target} is the service, set the baseUrl to that address; redirects are never followed.`,
    },
  );
}

/**
 * Sends one request and answers the parsed JSON. Every failure is coded: unreachable or timed out
 * (E_SERVICE_UNREACHABLE), redirected (E_SERVICE_RESPONSE_INVALID, not followed), refused (serviceHttpError:
 * 401/403, 404, 429 with retry-after, other), too large or not JSON. A cancelled call (the tool's signal) is E_TOOL_ABORTED.
 */
export async function requestServiceJson(request: ServiceRequest): Promise<unknown> {
  const timeout = AbortSignal.timeout(request.timeoutMs);
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: request.method ?? 'GET',
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal,
      // Not followed: the request carries the key (a header or the body), which must not reach another host.
      redirect: 'manual',
    });
  } catch (thrown) {
    if (request.signal?.aborted)
      throw new GoondanError('E_TOOL_ABORTED', `The call to ${request.service} was cancelled.`);
    if (timeout.aborted) {
      throw serviceUnreachable(request.service, request.url, new Error(`no answer within ${request.timeoutMs} ms`));
    }
    throw serviceUnreachable(request.service, request.url, thrown);
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel().catch(() => {});
    throw serviceRedirected(request, response);
  }
  let text: string;
  try {
    text = await readBoundedBody({ response, maxBytes: request.maxBytes, service: request.service });
  } catch (thrown) {
    if (thrown instanceof GoondanError) throw thrown;
    if (request.signal?.aborted)
      throw new GoondanError('E_TOOL_ABORTED', `The call to ${request.service} was cancelled.`);
    throw serviceUnreachable(
      request.service,
      request.url,
      timeout.aborted ? new Error('the answer stopped coming') : thrown,
    );
  }
  if (!response.ok) {
    throw serviceHttpError({
      service: request.service,
      status: response.status,
      statusText: response.statusText,
      body: text,
      retryAfter: retryAfterSeconds(response.headers.get('retry-after')),
      credential: request.credential,
    });
  }
  return parseServiceJson(text, request.service);
}
