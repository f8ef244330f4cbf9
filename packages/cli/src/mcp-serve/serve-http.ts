import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { readRequestBody, requestBodyTooLargeMessage } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { toListenError } from '../to-listen-error.ts';
import { isAllowedOrigin } from './check-origin.ts';
import { createMcpServer } from './create-mcp-server.ts';
import { refusalsOf } from './jsonrpc-problem.ts';
import { MAX_HTTP_BODY_BYTES } from './max-http-body-bytes.ts';
import type { Served } from './open-served.ts';

/** Sessions one HTTP server keeps at most (each is a Server object); a new one then ends the least recently used. */
const MAX_HTTP_SESSIONS = 100;

const jsonError = (status: number, message: string) =>
  Response.json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }, { status });

/** Streamable HTTP on 127.0.0.1 only, one Server per session; serves until SIGINT/SIGTERM. */
export async function serveHttp(options: {
  served: Served;
  port: number;
  what: string;
  allowedOrigins: readonly string[];
  logger: Console;
}): Promise<number> {
  const { served, port, what, allowedOrigins, logger } = options;
  const sessions = new Map<string, { server: Server; transport: WebStandardStreamableHTTPServerTransport }>();
  let http: ReturnType<typeof Bun.serve>;
  const allowedHosts: string[] = []; // once the port is known
  try {
    http = Bun.serve({
      hostname: '127.0.0.1',
      port,
      idleTimeout: 0, // SSE streams stay open; the SDK sends keep-alives
      // Bun's own bound (it closes the request) sits above ours, so every oversized body gets our JSON 413.
      maxRequestBodySize: MAX_HTTP_BODY_BYTES * 2,
      async fetch(request) {
        const origin = request.headers.get('origin');
        if (!isAllowedOrigin(origin, allowedOrigins)) {
          return jsonError(
            403,
            `Origin '${origin}' is not allowed (loopback origins are; add others with --allow-origin)`,
          );
        }
        if (new URL(request.url).pathname !== '/mcp')
          return new Response('Not found: the MCP endpoint is /mcp\n', { status: 404 });
        if (Number(request.headers.get('content-length')) > MAX_HTTP_BODY_BYTES) {
          return jsonError(413, `Payload Too Large: Request body must not exceed ${MAX_HTTP_BODY_BYTES} bytes`);
        }
        // Before the body is read (the SDK's transport checks it too, but only after): DNS rebinding protection.
        const host = request.headers.get('host');
        if (!allowedHosts.includes(host ?? '')) return jsonError(403, `Invalid Host header: ${host}`);
        const read = await readMessages(request, logger);
        if (read instanceof Response) return read;
        const parsedBody = read?.body;
        const sessionId = request.headers.get('mcp-session-id');
        if (sessionId) {
          const session = sessions.get(sessionId);
          if (!session) return jsonError(404, 'Session not found; start a new one with initialize');
          // Most recently used last, so the first entry is the one to evict.
          sessions.delete(sessionId);
          sessions.set(sessionId, session);
          return session.transport.handleRequest(request, { parsedBody });
        }
        if (request.method !== 'POST') return jsonError(400, 'No mcp-session-id header; start with initialize');
        if (sessions.size >= MAX_HTTP_SESSIONS) {
          // Clients often disconnect without DELETE; the least recently used session makes room.
          const [oldestId, oldest] = sessions.entries().next().value!;
          sessions.delete(oldestId);
          await oldest.server.close().catch(() => {});
        }
        const server = createMcpServer(served, logger);
        const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableDnsRebindingProtection: true,
          allowedHosts,
          maxRequestBodySize: MAX_HTTP_BODY_BYTES,
          onsessioninitialized: (id) => {
            sessions.set(id, { server, transport });
          },
          onsessionclosed: (id) => {
            sessions.delete(id);
          },
        });
        await server.connect(transport);
        endStreamsOfCancelledRequests(transport);
        const response = await transport.handleRequest(request, { parsedBody });
        if (transport.sessionId === undefined) await server.close().catch(() => {}); // not an initialize
        return response;
      },
    });
  } catch (thrown) {
    throw toListenError(thrown, { hostname: '127.0.0.1', port }, 'gdn mcp serve', '--http');
  }
  allowedHosts.push(`127.0.0.1:${http.port}`, `localhost:${http.port}`);
  console.error(`gdn mcp serve: listening on http://127.0.0.1:${http.port}/mcp (${what})`);
  const stopped = Promise.withResolvers<void>();
  process.once('SIGINT', () => stopped.resolve());
  process.once('SIGTERM', () => stopped.resolve());
  await stopped.promise;
  await Promise.all([...sessions.values()].map(({ server }) => server.close().catch(() => {})));
  await http.stop(true);
  return 0;
}

/**
 * The JSON body of a POST, read here (at most MAX_HTTP_BODY_BYTES) so that what is not JSON-RPC is answered as
 * JSON-RPC says, with the request's id: -32600 Invalid Request (another jsonrpc version, no method, an empty batch) or
 * -32602 Invalid params, as over stdio. The SDK answers all of it -32700 Parse error, which is for text that is not
 * JSON. Other requests (not a POST, not JSON) are left to the SDK: undefined.
 */
async function readMessages(request: Request, logger: Console): Promise<{ body: unknown } | Response | undefined> {
  const type = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
  if (request.method !== 'POST' || type !== 'application/json') return undefined;
  const read = await readRequestBody(request, MAX_HTTP_BODY_BYTES);
  if (read.tooLarge) return jsonError(413, requestBodyTooLargeMessage(MAX_HTTP_BODY_BYTES));
  let body: unknown;
  try {
    body = JSON.parse(read.text);
  } catch {
    return Response.json(
      { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: Invalid JSON' }, id: null },
      { status: 400 },
    );
  }
  const refusals = refusalsOf(body);
  if (!refusals) return { body };
  for (const { error } of refusals)
    logger.error(`gdn mcp serve: a POST was refused: ${error.message}; answered ${error.code}`);
  return Response.json(Array.isArray(body) ? refusals : refusals[0], { status: 400 });
}

/**
 * The SDK's transport ends the event stream of a POST once every request sent in it is answered, and a request the
 * client cancelled (notifications/cancelled) is never answered (as the spec says): its stream would stay open, with
 * its keep-alives, until the session ends, one more for every cancelled call. So the cancellation of a request that
 * came alone in its POST ends that stream. A batch's stream is left to the SDK: its other requests answer on it.
 */
function endStreamsOfCancelledRequests(transport: WebStandardStreamableHTTPServerTransport): void {
  /** Requests that came in a batch: the messages of one POST are delivered in a row, with the same requestInfo. */
  const batched = new Set<RequestId>();
  let last: { id: RequestId; requestInfo: unknown } | undefined;
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    deliver?.(message, extra); // first: the SDK aborts the cancelled request's handler
    if ('method' in message && 'id' in message) {
      const requestInfo = extra?.requestInfo;
      if (requestInfo !== undefined && last?.requestInfo === requestInfo) batched.add(last.id).add(message.id);
      last = { id: message.id, requestInfo };
    } else if ('method' in message && message.method === 'notifications/cancelled') {
      const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof id !== 'string' && typeof id !== 'number') return;
      if (!batched.delete(id)) transport.closeSSEStream(id);
    }
  };
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ('id' in message && !('method' in message)) batched.delete(message.id as RequestId);
    return send(message, options);
  };
}
