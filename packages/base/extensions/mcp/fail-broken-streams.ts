import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { describeThrown } from './describe-failure.ts';

/**
 * A fetch for the SDK's StreamableHTTPClientTransport that fails the requests of a POST whose event stream breaks.
 *
 * The SDK reads the answer to a request from the event stream of its POST. When that stream breaks (the server died,
 * the connection was reset) it only reports the error; the request stays pending until its timeout. Over stdio the
 * same death closes the transport and rejects every pending request at once. Here the stream is wrapped: when it
 * breaks, a JSON-RPC error (ConnectionClosed) for each request of that POST ends it, so the request fails at once
 * and is answered E_MCP_UNAVAILABLE. A request already answered ignores it (the SDK drops unknown ids).
 */
export function failBrokenStreams(baseFetch: FetchLike = fetch): FetchLike {
  return async function fetchFailingBrokenStreams(url, init) {
    const response = await baseFetch(url, init);
    if (init?.method !== 'POST' || !response.ok || response.body === null) return response;
    const mediaType = response.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
    if (mediaType !== 'text/event-stream') return response;
    const ids = requestIds(init.body);
    if (ids.length === 0) return response;
    return new Response(guard(response.body, ids, init.signal ?? undefined), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** The ids of the JSON-RPC requests (not notifications or responses) in a POST body. */
function requestIds(body: RequestInit['body']): Array<string | number> {
  if (typeof body !== 'string') return [];
  try {
    const parsed = JSON.parse(body) as unknown;
    const messages = (Array.isArray(parsed) ? parsed : [parsed]) as Array<Record<string, unknown>>;
    return messages
      .filter((message) => typeof message?.method === 'string' && message.id !== undefined && message.id !== null)
      .map((message) => message.id as string | number);
  } catch {
    return [];
  }
}

function guard(
  body: ReadableStream<Uint8Array>,
  ids: Array<string | number>,
  signal: AbortSignal | undefined,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (thrown) {
        if (signal?.aborted) {
          controller.error(thrown); // the transport is closing: nothing waits any more
          return;
        }
        const reason = `the HTTP response stream broke before the answer (${describeThrown(thrown)})`;
        // A blank line first ends an event the break may have cut in two.
        let text = '\n\n';
        for (const id of ids) {
          const message = { jsonrpc: '2.0', id, error: { code: ErrorCode.ConnectionClosed, message: reason } };
          text += `event: message\ndata: ${JSON.stringify(message)}\n\n`;
        }
        controller.enqueue(encoder.encode(text));
        controller.close();
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
