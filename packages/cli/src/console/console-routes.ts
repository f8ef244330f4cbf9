import { listInstanceDatabases, permissionDecisions } from '@goondan/core';
import { errorPageLink } from '../docs-link.ts';
import { apiErrorResponse, badRequest } from '../serve/api-error.ts';
import { schedulePageFilters } from '../serve/schedule-page.ts';
import type { Route } from '../serve/serve-api.ts';
import { consoleScript, consoleStyle, errorPage } from './console-assets.ts';
import {
  consoleAudit,
  consoleConversation,
  consoleOverview,
  consoleSchedules,
  consoleTraceList,
} from './console-data.ts';
import {
  type FilterParser,
  instanceKeyFilter,
  matching,
  oneOf,
  positiveInteger,
  readFilters,
  time,
} from './console-filters.ts';
import {
  consoleAssetHeaders,
  consoleDataHeaders,
  consolePage,
  consoleSecurityHeaders,
  errorDocPage,
} from './console-page.ts';
import type { ConsoleSource } from './console-source.ts';
import { TraceChanges } from './trace-changes.ts';
import { checkTraceExists, consoleSpanDetail, consoleTraceOutline } from './trace-outline.ts';

const errorCode = matching(/^E_[A-Z0-9_]{1,64}$/, 'an error code (E_…)');

/** An agent of the bundle, or one that has stored state here (a trace may outlive its agent's removal). */
function knownAgent(source: ConsoleSource): FilterParser<string> {
  return (text, name) => {
    const stored = listInstanceDatabases({ rootDir: source.rootDir() }).map((file) => file.agentName);
    const agents = [...new Set([...source.agents(), ...stored])].sort();
    if (agents.includes(text)) return text;
    throw badRequest(`'${name}': no agent named '${text.slice(0, 64)}' here; agents: ${agents.join(', ') || 'none'}.`);
  };
}

/** Text/event-stream of `change` events whenever the trace's stored state changes (and once at the start). */
function liveTrace(request: Request, changes: TraceChanges, traceId: string): Response {
  const encoder = new TextEncoder();
  let unsubscribe = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string) => {
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          unsubscribe();
        }
      };
      unsubscribe = changes.subscribe(traceId, (change) =>
        send(
          change.type === 'change'
            ? `event: change\ndata: ${JSON.stringify({ version: change.version })}\n\n`
            : ': keep-alive\n\n',
        ),
      );
      request.signal.addEventListener(
        'abort',
        () => {
          unsubscribe();
          try {
            controller.close();
          } catch {}
        },
        { once: true },
      );
    },
    cancel() {
      unsubscribe();
    },
  });
  return new Response(stream, {
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-store', 'x-accel-buffering': 'no' },
  });
}

/** A route of /console/api whose answers, failures included, carry consoleDataHeaders. */
function dataRoute(path: string, handle: Route['handle']): Route {
  return {
    method: 'GET',
    path,
    handle: async (request, url, params) => {
      let response: Response;
      try {
        response = await handle(request, url, params);
      } catch (thrown) {
        response = apiErrorResponse(thrown);
      }
      for (const [name, value] of Object.entries(consoleDataHeaders)) response.headers.set(name, value);
      return response;
    },
  };
}

/**
 * The web console (docs/console.md): its page, script and style (public: no data), and the read endpoints its
 * views use. Approving and denying go through the approvals API (/v1/approvals).
 */
export function consoleRoutes(source: ConsoleSource): Route[] {
  // One poll of the databases serves every open live view (docs/console.md#performance).
  const changes = new TraceChanges(() => source.rootDir());
  const agent = knownAgent(source);
  const html = (body: string, status = 200) =>
    new Response(body, { status, headers: { 'content-type': 'text/html; charset=utf-8', ...consoleSecurityHeaders } });
  return [
    { method: 'GET', path: '/console', public: true, handle: () => html(consolePage) },
    {
      method: 'GET',
      path: '/console/app.js',
      public: true,
      handle: async () =>
        new Response(await consoleScript(), {
          headers: { 'content-type': 'text/javascript; charset=utf-8', ...consoleAssetHeaders },
        }),
    },
    {
      method: 'GET',
      path: '/console/app.css',
      public: true,
      handle: async () =>
        new Response(await consoleStyle(), {
          headers: { 'content-type': 'text/css; charset=utf-8', ...consoleAssetHeaders },
        }),
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
    dataRoute('/console/api/overview', () => Response.json(consoleOverview(source))),
    dataRoute('/console/api/traces', (_request, url) => {
      const filters = readFilters(url, {
        agent,
        instance: instanceKeyFilter,
        status: oneOf(['running', 'ok', 'error', 'cancelled']),
        tool: matching(/^[A-Za-z0-9_-]{1,64}$/, 'a tool name (calc__add) or a Tool resource (calc)'),
        error: errorCode,
        since: time,
        until: time,
        limit: positiveInteger(1000),
      });
      const { error, limit, ...rest } = filters;
      if (rest.since !== undefined && rest.until !== undefined && rest.since > rest.until) {
        throw badRequest("'since' is after 'until'.");
      }
      return Response.json(
        consoleTraceList(source, { ...rest, limit: limit ?? 100, ...(error ? { errorCode: error } : {}) }),
      );
    }),
    dataRoute('/console/api/traces/:id', (_request, _url, params) =>
      Response.json(consoleTraceOutline(source, params.id!)),
    ),
    dataRoute('/console/api/traces/:id/spans/:span', (_request, _url, params) =>
      Response.json(consoleSpanDetail(source, params.id!, params.span!)),
    ),
    dataRoute('/console/api/traces/:id/live', (request, _url, params) => {
      checkTraceExists(source, params.id!);
      return liveTrace(request, changes, params.id!);
    }),
    dataRoute('/console/api/audit', (_request, url) => {
      const { limit, ...filters } = readFilters(url, {
        agent,
        tool: matching(/^[A-Za-z0-9_*-]{1,128}$/, 'a tool name, or a glob of one (bash__*)'),
        decision: oneOf([...permissionDecisions, 'refused']),
        limit: positiveInteger(5000),
      });
      return Response.json(consoleAudit(source, { ...filters, limit: limit ?? 200 }));
    }),
    dataRoute('/console/api/conversation/:agent/:key', (_request, url, params) => {
      const { limit, before } = readFilters(url, {
        limit: positiveInteger(5000),
        before: matching(/^[\w.:-]{1,128}$/, 'a message id (the `earlier` of the page after it)'),
      });
      return Response.json(
        consoleConversation(source, params.agent!, params.key!, {
          limit: limit ?? 200,
          ...(before === undefined ? {} : { before }),
        }),
      );
    }),
    dataRoute('/console/api/schedules', (_request, url) => {
      const { limit, after } = readFilters(url, schedulePageFilters);
      return Response.json(
        consoleSchedules(source, {
          ...(limit === undefined ? {} : { limit }),
          ...(after === undefined ? {} : { after }),
        }),
      );
    }),
    {
      method: 'GET',
      path: '/',
      public: true,
      handle: () => new Response(null, { status: 302, headers: { location: '/console' } }),
    },
  ];
}
