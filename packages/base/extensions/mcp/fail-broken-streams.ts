import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { describeThrown } from './describe-failure.ts';

/** The largest message read from an HTTP server (an event of its stream, or a JSON answer): as over stdio, 10 MiB. */
export const MAX_HTTP_MESSAGE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;

type RequestId = string | number;

/**
 * A fetch for the SDK's StreamableHTTPClientTransport that fails the requests of a POST whose answer cannot come.
 *
 * The SDK reads the answer to a request from the event stream of its POST. When that stream breaks (the server died,
 * the connection was reset) it only reports the error; the request stays pending until its timeout. Over stdio the
 * same death closes the transport and rejects every pending request at once. Here the stream is wrapped: when it
 * breaks, a JSON-RPC error (ConnectionClosed) for each request of that POST ends it, so the request fails at once
 * and is answered E_MCP_UNAVAILABLE. A request already answered ignores it (the SDK drops unknown ids).
 *
 * The SDK also holds a whole event, or a whole JSON answer, in memory however large: a server sending one without
 * end would exhaust the agent's memory before the call's timeout. An event or a JSON answer over
 * MAX_HTTP_MESSAGE_BYTES is not read further: the requests of that POST fail (InternalError, saying so).
 */
export function failBrokenStreams(baseFetch: FetchLike = fetch): FetchLike {
  return async function fetchFailingBrokenStreams(url, init) {
    const response = await baseFetch(url, init);
    if (init?.method !== 'POST' || !response.ok || response.body === null) return response;
    const ids = requestIds(init.body);
    if (ids.length === 0) return response;
    const mediaType = response.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
    if (mediaType === 'application/json') return boundedJson(response, ids);
    if (mediaType !== 'text/event-stream') return response;
    return new Response(guard(response.body, ids, init.signal ?? undefined), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** The ids of the JSON-RPC requests (not notifications or responses) in a POST body. */
function requestIds(body: RequestInit['body']): RequestId[] {
  if (typeof body !== 'string') return [];
  try {
    const parsed = JSON.parse(body) as unknown;
    const messages = (Array.isArray(parsed) ? parsed : [parsed]) as Array<Record<string, unknown>>;
    return messages
      .filter((message) => typeof message?.method === 'string' && message.id !== undefined && message.id !== null)
      .map((message) => message.id as RequestId);
  } catch {
    return [];
  }
}

const tooLarge = `the answer was more than ${MAX_HTTP_MESSAGE_BYTES} bytes (10 MiB), the most one message may be; it was not read further. Ask for less at a time`;

const errorsFor = (ids: RequestId[], code: number, message: string) =>
  ids.map((id) => ({ jsonrpc: '2.0', id, error: { code, message } }));

/** A JSON answer read up to MAX_HTTP_MESSAGE_BYTES: a larger one is replaced by an error for each request. */
async function boundedJson(response: Response, ids: RequestId[]): Promise<Response> {
  const reader = response.body!.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_HTTP_MESSAGE_BYTES) {
      await reader.cancel().catch(() => {});
      const errors = errorsFor(ids, ErrorCode.InternalError, tooLarge);
      return Response.json(errors.length === 1 ? errors[0] : errors, {
        status: response.status,
        headers: response.headers,
      });
    }
    chunks.push(value);
  }
  return new Response(Buffer.concat(chunks), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

function guard(
  body: ReadableStream<Uint8Array>,
  ids: RequestId[],
  signal: AbortSignal | undefined,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const encoder = new TextEncoder();
  /** Bytes of the event being read (since the last blank line), and whether the last line read was still open. */
  let eventBytes = 0;
  let lineStart = true;
  /** Ends the stream with an error for each request of the POST (a blank line first ends an event cut in two). */
  const endWith = (controller: ReadableStreamDefaultController<Uint8Array>, code: number, message: string) => {
    let text = '\n\n';
    for (const error of errorsFor(ids, code, message)) text += `event: message\ndata: ${JSON.stringify(error)}\n\n`;
    controller.enqueue(encoder.encode(text));
    controller.close();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (thrown) {
        if (signal?.aborted) {
          controller.error(thrown); // the transport is closing: nothing waits any more
          return;
        }
        endWith(
          controller,
          ErrorCode.ConnectionClosed,
          `the HTTP response stream broke before the answer (${describeThrown(thrown)})`,
        );
        return;
      }
      if (chunk.done) {
        controller.close();
        return;
      }
      const { value } = chunk;
      // An empty line (`\n` or `\r\n` right after a line end) ends an event: count the bytes since the last one.
      for (let start = 0; ; ) {
        const end = value.indexOf(0x0a, start);
        if (end === -1) {
          eventBytes += value.length - start;
          if (value.length > start) lineStart = false;
          break;
        }
        const line = end - start;
        const blank = lineStart && (line === 0 || (line === 1 && value[start] === 0x0d));
        eventBytes = blank ? 0 : eventBytes + line + 1;
        lineStart = true;
        start = end + 1;
      }
      if (eventBytes > MAX_HTTP_MESSAGE_BYTES) {
        await reader.cancel().catch(() => {});
        endWith(controller, ErrorCode.InternalError, tooLarge);
        return;
      }
      controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
