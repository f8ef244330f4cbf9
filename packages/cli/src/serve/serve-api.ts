import { GoondanError } from '@goondan/core';
import { isAllowedOrigin } from '../mcp-serve/check-origin.ts';
import { apiErrorResponse, badRequest } from './api-error.ts';
import { checkBearerToken, isLoopbackHost } from './check-bearer-token.ts';
import { bodyTooLarge, MAX_BODY_BYTES } from './read-json-body.ts';

type Handler = (request: Request, url: URL, params: Record<string, string>) => Promise<Response> | Response;

/** One endpoint: a method and a path whose `:name` segments become params. */
export interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  handle: Handler;
  /** Served without the token (the console's page and script, which hold no data); Origin is still checked. */
  public?: boolean;
}

function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return null;
  if (want.some((part, index) => !part.startsWith(':') && part !== got[index])) return null;
  const params: Record<string, string> = {};
  for (let index = 0; index < want.length; index += 1) {
    const part = want[index]!;
    if (!part.startsWith(':')) continue;
    try {
      params[part.slice(1)] = decodeURIComponent(got[index]!);
    } catch {
      // The path is this route's, its part is not text (`%ff`, a lone `%`): a bad request, not an unknown path.
      throw badRequest(`The path part '${got[index]!.slice(0, 200)}' is not valid percent-encoded UTF-8.`);
    }
  }
  return params;
}

const corsHeaders = {
  'access-control-allow-methods': 'GET, HEAD, POST, DELETE',
  'access-control-allow-headers': 'authorization, content-type, x-goondan-instance',
  'access-control-max-age': '600',
  // Read by pages: the instance used, the request's id, whether a failed turn may be sent again (OpenAI's SDK), and
  // when to try again (while the host drains).
  'access-control-expose-headers': 'x-goondan-instance, x-request-id, x-should-retry, retry-after',
};

/**
 * Who may call (null: admitted), before any route: a page of another site never (its Origin must be loopback or allowed with
 * `--allow-origin`, which also answers its CORS preflight); without a token, only requests naming this machine in
 * `Host` (a site whose name was made to resolve to 127.0.0.1 — DNS rebinding — names itself); with a token, only
 * requests that carry it.
 */
function admit(
  request: Request,
  options: { token?: string; allowedOrigins: readonly string[] },
): { error: GoondanError; status: 400 | 401 | 403 } | null {
  const origin = request.headers.get('origin');
  if (!isAllowedOrigin(origin, options.allowedOrigins)) {
    const message = `Origin '${origin}' is not allowed (loopback origins are; add others with --allow-origin).`;
    const suggestion = 'Call from a loopback page, or start gdn serve with --allow-origin naming this origin.';
    return { error: new GoondanError('E_SERVE_UNAUTHORIZED', message, { suggestion }), status: 403 };
  }
  if (options.token !== undefined) {
    try {
      checkBearerToken(request, options.token);
      return null;
    } catch (thrown) {
      return { error: thrown as GoondanError, status: 401 };
    }
  }
  const given = request.headers.get('host') ?? 'localhost';
  let host: string;
  try {
    host = new URL(`http://${given}`).hostname;
  } catch {
    const message = `The Host header '${given.slice(0, 200)}' is not a host name (host or host:port).`;
    return { error: new GoondanError('E_SERVE_BAD_REQUEST', message), status: 400 };
  }
  if (isLoopbackHost(host)) return null;
  const message = `Host '${host}' is not a loopback name; without a token only 127.0.0.1, ::1 and localhost are served.`;
  return { error: new GoondanError('E_SERVE_UNAUTHORIZED', message), status: 403 };
}

/**
 * The HTTP API of `gdn serve` as a fetch handler (Bun.serve): who may call (admit), then the routes; anything
 * thrown becomes coded JSON with the status of its code.
 */
export function createServeApi(options: { routes: Route[]; token?: string; allowedOrigins?: readonly string[] }) {
  const { routes } = options;
  const allowedOrigins = options.allowedOrigins ?? [];
  return async function serveApi(request: Request): Promise<Response> {
    const origin = request.headers.get('origin');
    const cors: Record<string, string> =
      origin && isAllowedOrigin(origin, allowedOrigins)
        ? { ...corsHeaders, 'access-control-allow-origin': origin, vary: 'origin' }
        : {};
    try {
      if (request.method === 'OPTIONS' && origin && cors['access-control-allow-origin']) {
        // An allowed origin may send the headers its client adds (the OpenAI SDK's x-stainless-*): the token still
        // decides, not the header names.
        const asked = request.headers.get('access-control-request-headers');
        const allowHeaders = asked ? { 'access-control-allow-headers': asked } : {};
        return new Response(null, { status: 204, headers: { ...cors, ...allowHeaders } });
      }
      const url = URL.parse(request.url);
      // Bun builds the request's URL from its Host header: one that is not a host name makes no URL.
      if (url === null) {
        const given = (request.headers.get('host') ?? '').slice(0, 200);
        const error = new GoondanError(
          'E_SERVE_BAD_REQUEST',
          `The Host header '${given}' is not a host name (host or host:port).`,
        );
        return apiErrorResponse(error, { headers: cors, status: 400 });
      }
      // Before anything else, so no route and no refusal leaves a large body for Bun to read through. Bun's own
      // bound (maxRequestBodySize) must sit above ours (BUN_MAX_REQUEST_BODY_SIZE), or Bun answers first: a bare 413.
      if (Number(request.headers.get('content-length')) > MAX_BODY_BYTES) {
        return apiErrorResponse(bodyTooLarge(MAX_BODY_BYTES), { headers: { ...cors, ...closeConnection } });
      }
      const path = url.pathname.replace(/\/+$/, '') || '/';
      const matching = routes.map((route) => ({ route, params: match(route.path, path) })).filter((m) => m.params);
      // HEAD is GET without the body (Bun sends the headers of the answer and drops its body).
      const method = request.method === 'HEAD' ? 'GET' : request.method;
      const found = matching.find(({ route }) => route.method === method);
      const refused = admit(request, {
        allowedOrigins,
        ...(options.token === undefined ? {} : { token: options.token }),
      });
      // A public route (the console's page and script, no data) is served without the token; Origin still counts.
      if (refused && !(found?.route.public && refused.status === 401)) {
        const bearer: Record<string, string> = refused.status === 401 ? { 'www-authenticate': 'Bearer' } : {};
        return apiErrorResponse(refused.error, { headers: { ...cors, ...bearer }, status: refused.status });
      }
      if (found) return withHeaders(await found.route.handle(request, url, found.params ?? {}), cors);
      // What the request asked, as the answer quotes it: a path (or a made-up method) of kilobytes is cut.
      const asked = `${cut(request.method, 20)} ${cut(path, 200)}`;
      if (matching.length === 0) {
        // An OpenAI client pointed here may try the Responses, Embeddings or legacy Completions API.
        const openAi = path.startsWith('/v1/')
          ? ' Of the OpenAI API, this server speaks POST /v1/chat/completions and GET /v1/models.'
          : '';
        throw new GoondanError('E_SERVE_ROUTE_NOT_FOUND', `${asked}: no such endpoint.${openAi}`);
      }
      const allowed = allowedMethods(matching.map(({ route }) => route.method));
      const error = new GoondanError('E_SERVE_ROUTE_NOT_FOUND', `${asked}: this path takes ${allowed}.`);
      return apiErrorResponse(error, { headers: { ...cors, allow: allowed }, status: 405 });
    } catch (thrown) {
      // A body cut off at the limit while it was read: the rest of it is not read through either.
      const large = thrown instanceof GoondanError && thrown.code === 'E_SERVE_BODY_TOO_LARGE';
      return apiErrorResponse(thrown, { headers: large ? { ...cors, ...closeConnection } : cors });
    }
  };
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** Ends the connection after the answer, instead of Bun reading the unread rest of the body to keep it alive. */
const closeConnection = { connection: 'close' };

function allowedMethods(methods: string[]): string {
  return (methods.includes('GET') ? [...methods, 'HEAD'] : methods).join(', ');
}

function withHeaders(response: Response, headers: Record<string, string>): Response {
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}
