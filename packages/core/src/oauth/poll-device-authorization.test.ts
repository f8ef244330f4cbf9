import { describe, expect, test } from 'bun:test';
import * as oauth from 'oauth4webapi';
import { DEVICE_POLL_BACKOFF_CAP_MS, pollDelayMs, transientPollFailure } from './poll-device-authorization.ts';

const server = { issuer: 'http://127.0.0.1:9', token_endpoint: 'http://127.0.0.1:9/token' };

/** What oauth4webapi throws for the token endpoint's `response` to a device-code poll. */
async function failureOf(response: Response): Promise<unknown> {
  try {
    await oauth.processDeviceCodeResponse(server, { client_id: 'tv' }, response);
  } catch (cause) {
    return cause;
  }
  throw new Error('the answer was accepted');
}

function json(status: number, body: Record<string, string>): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

describe('transientPollFailure', () => {
  test('an answer that is not OAuth with status 5xx or 429 may pass', async () => {
    const html = { 'content-type': 'text/html' };
    const unavailable = new Response('<html/>', { status: 503, statusText: 'Service Unavailable', headers: html });
    expect(transientPollFailure(await failureOf(unavailable), 100)).toBe('answered HTTP 503 Service Unavailable');
    expect(transientPollFailure(await failureOf(new Response('', { status: 502 })), 100)).toBe('answered HTTP 502');
    expect(transientPollFailure(await failureOf(json(500, { error: 'server_error' })), 100)).toBe('answered HTTP 500');
    expect(transientPollFailure(await failureOf(new Response('busy', { status: 429 })), 100)).toBe('answered HTTP 429');
  });

  test('an OAuth answer saying the server cannot answer now, or with status 429, may pass', async () => {
    expect(transientPollFailure(await failureOf(json(400, { error: 'temporarily_unavailable' })), 100)).toBe(
      'answered HTTP 400 (temporarily_unavailable)',
    );
    expect(transientPollFailure(await failureOf(json(429, { error: 'rate_limited' })), 100)).toBe(
      'answered HTTP 429 (rate_limited)',
    );
  });

  test('a refusal (an OAuth error of 4xx) and other answers that are not OAuth end the authorization', async () => {
    for (const error of ['access_denied', 'expired_token', 'invalid_grant', 'invalid_request'])
      expect(transientPollFailure(await failureOf(json(400, { error })), 100)).toBeUndefined();
    expect(transientPollFailure(await failureOf(json(401, { error: 'invalid_client' })), 100)).toBeUndefined();
    expect(transientPollFailure(await failureOf(new Response('not here', { status: 404 })), 100)).toBeUndefined();
    // A 200 that is not a token answer (a captive portal's page) is not retried either.
    const page = new Response('<html/>', { status: 200, headers: { 'content-type': 'text/html' } });
    expect(transientPollFailure(await failureOf(page), 100)).toBeUndefined();
  });

  test('no answer in time may pass, and says the bound', () => {
    expect(transientPollFailure(new DOMException('The operation timed out.', 'TimeoutError'), 1234)).toBe(
      'did not answer within 1234 ms',
    );
  });

  test('a connection refused (what fetch throws for a port nothing listens on) may pass', async () => {
    const closed = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() });
    const url = `http://127.0.0.1:${closed.port}/token`;
    await closed.stop(true);
    const cause = await fetch(url).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(transientPollFailure(cause, 100)).toStartWith('could not be reached (');
  });

  test("oauth4webapi's own TypeErrors (a misconfigured client) and plain errors are not network failures", async () => {
    const misuse = await Promise.resolve()
      .then(() => oauth.deviceCodeGrantRequest(server, { client_id: 'tv' }, oauth.None(), ''))
      .catch((thrown: unknown) => thrown);
    expect(misuse).toBeInstanceOf(TypeError);
    expect(transientPollFailure(misuse, 100)).toBeUndefined();
    expect(transientPollFailure(new TypeError('x is not a function'), 100)).toBeUndefined();
    expect(transientPollFailure(new Error('boom'), 100)).toBeUndefined();
    expect(transientPollFailure(new DOMException('The operation was aborted.', 'AbortError'), 100)).toBeUndefined();
  });
});

describe('pollDelayMs', () => {
  test('the interval while polls answer; doubled per failure in a row, up to the cap', () => {
    expect(pollDelayMs(5000, 0)).toBe(5000);
    expect([1, 2, 3, 4, 5].map((failures) => pollDelayMs(5000, failures))).toEqual([
      10_000,
      20_000,
      40_000,
      DEVICE_POLL_BACKOFF_CAP_MS,
      DEVICE_POLL_BACKOFF_CAP_MS,
    ]);
    // A server whose own interval is longer than the cap is never polled faster than it asks.
    expect(pollDelayMs(90_000, 3)).toBe(90_000);
  });
});
