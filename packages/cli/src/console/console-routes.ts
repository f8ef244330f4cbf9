import { errorPageLink } from '../docs-link.ts';
import { badRequest } from '../serve/api-error.ts';
import type { Route } from '../serve/serve-api.ts';
import { wholeNumber } from '../whole-number.ts';
import { consoleScript, consoleStyle, errorPage } from './console-assets.ts';
import {
  consoleAudit,
  consoleConversation,
  consoleOverview,
  consoleSchedules,
  consoleTraceList,
  traceVersion,
} from './console-data.ts';
import { consolePage, consoleSecurityHeaders, errorDocPage } from './console-page.ts';
import type { ConsoleSource } from './console-source.ts';
import { checkTraceExists, consoleSpanDetail, consoleTraceOutline } from './trace-outline.ts';

/** How often a live trace view's stream looks at the databases for new spans and answers. */
export const LIVE_POLL_MS = 400;

function limitOf(url: URL, fallback: number, max: number): number {
  const text = url.searchParams.get('limit');
  if (text === null) return fallback;
  const limit = wholeNumber(text, 1);
  if (limit === null) throw badRequest("'limit' must be a positive integer.");
  return Math.min(limit, max);
}

function timeOf(url: URL, name: string): number | undefined {
  const text = url.searchParams.get(name);
  if (!text) return undefined;
  const at = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (!Number.isFinite(at)) throw badRequest(`'${name}' must be a time (ISO 8601 or epoch milliseconds).`);
  return at;
}

const optional = (url: URL, name: string) => url.searchParams.get(name) || undefined;

/** Text/event-stream of `change` events whenever the trace's stored state changes (and once at the start). */
function liveTrace(request: Request, source: ConsoleSource, traceId: string): Response {
  const encoder = new TextEncoder();
  let timer: ReturnType<typeof setInterval> | undefined;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let last = '';
      let beats = 0;
      const tick = () => {
        try {
          const version = traceVersion(source, traceId);
          if (version !== last) {
            last = version;
            controller.enqueue(encoder.encode(`event: change\ndata: ${JSON.stringify({ version })}\n\n`));
          } else if (++beats % 25 === 0) controller.enqueue(encoder.encode(': keep-alive\n\n'));
        } catch {
          // A database busy for a moment is read at the next tick.
        }
      };
      tick();
      timer = setInterval(tick, LIVE_POLL_MS);
      request.signal.addEventListener('abort', () => {
        clearInterval(timer);
        try {
          controller.close();
        } catch {}
      });
    },
    cancel() {
      clearInterval(timer);
    },
  });
  return new Response(stream, {
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-store', 'x-accel-buffering': 'no' },
  });
}

/**
 * The web console (docs/console.md): its page, script and style (public: no data), and the read endpoints its
 * views use. Approving and denying go through the approvals API (/v1/approvals).
 */
export function consoleRoutes(source: ConsoleSource): Route[] {
  const html = (body: string, status = 200) =>
    new Response(body, { status, headers: { 'content-type': 'text/html; charset=utf-8', ...consoleSecurityHeaders } });
  return [
    { method: 'GET', path: '/console', public: true, handle: () => html(consolePage) },
    {
      method: 'GET',
      path: '/console/app.js',
      public: true,
      handle: async () =>
        new Response(await consoleScript(), { headers: { 'content-type': 'text/javascript; charset=utf-8' } }),
    },
    {
      method: 'GET',
      path: '/console/app.css',
      public: true,
      handle: async () =>
        new Response(await consoleStyle(), { headers: { 'content-type': 'text/css; charset=utf-8' } }),
    },
    {
      method: 'GET',
      path: '/console/errors/:code',
      public: true,
      handle: async (_request, _url, params) => {
        const code = params.code!;
        const page = errorPage(code);
        if (page) return html(errorDocPage(code, await page));
        if (!/^E_[A-Z0-9_]{1,64}$/.test(code))
          return html(errorDocPage('Not an error code', 'Not an error code.'), 404);
        return html(errorDocPage(code, `No page for ${code} in this installation.`, errorPageLink(code)), 404);
      },
    },
    { method: 'GET', path: '/console/api/overview', handle: () => Response.json(consoleOverview(source)) },
    {
      method: 'GET',
      path: '/console/api/traces',
      handle: (_request, url) => {
        const status = optional(url, 'status');
        if (status && !['running', 'ok', 'error', 'cancelled'].includes(status)) {
          throw badRequest("'status' must be running, ok, error or cancelled.");
        }
        const filter = {
          limit: limitOf(url, 100, 1000),
          agent: optional(url, 'agent'),
          instance: optional(url, 'instance'),
          status,
          tool: optional(url, 'tool'),
          errorCode: optional(url, 'error'),
          since: timeOf(url, 'since'),
          until: timeOf(url, 'until'),
        };
        return Response.json(consoleTraceList(source, filter));
      },
    },
    {
      method: 'GET',
      path: '/console/api/traces/:id',
      handle: (_request, _url, params) => Response.json(consoleTraceOutline(source, params.id!)),
    },
    {
      method: 'GET',
      path: '/console/api/traces/:id/spans/:span',
      handle: (_request, _url, params) => Response.json(consoleSpanDetail(source, params.id!, params.span!)),
    },
    {
      method: 'GET',
      path: '/console/api/traces/:id/live',
      handle: (request, _url, params) => {
        checkTraceExists(source, params.id!);
        return liveTrace(request, source, params.id!);
      },
    },
    {
      method: 'GET',
      path: '/console/api/audit',
      handle: (_request, url) =>
        Response.json(
          consoleAudit(source, {
            limit: limitOf(url, 200, 5000),
            ...(optional(url, 'agent') ? { agent: optional(url, 'agent')! } : {}),
            ...(optional(url, 'tool') ? { tool: optional(url, 'tool')! } : {}),
            ...(optional(url, 'decision') ? { decision: optional(url, 'decision')! } : {}),
          }),
        ),
    },
    {
      method: 'GET',
      path: '/console/api/conversation/:agent/:key',
      handle: (_request, url, params) =>
        Response.json(consoleConversation(source, params.agent!, params.key!, limitOf(url, 200, 5000))),
    },
    { method: 'GET', path: '/console/api/schedules', handle: () => Response.json(consoleSchedules(source)) },
    {
      method: 'GET',
      path: '/',
      public: true,
      handle: () => new Response(null, { status: 302, headers: { location: '/console' } }),
    },
  ];
}
