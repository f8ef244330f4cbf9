import { GoondanError } from '@goondan/core';
import { apiErrorResponse } from './api-error.ts';
import { checkBearerToken } from './check-bearer-token.ts';

type Handler = (request: Request, url: URL, params: Record<string, string>) => Promise<Response> | Response;

/** One endpoint: a method and a path whose `:name` segments become params. */
export interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  handle: Handler;
}

function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let index = 0; index < want.length; index += 1) {
    const part = want[index]!;
    if (part.startsWith(':')) {
      try {
        params[part.slice(1)] = decodeURIComponent(got[index]!);
      } catch {
        return null;
      }
    } else if (part !== got[index]) return null;
  }
  return params;
}

/**
 * The HTTP API of `gdn serve` as a fetch handler (Bun.serve): the token check when one is set, then the routes;
 * anything thrown becomes coded JSON with the status of its code.
 */
export function createServeApi(options: { routes: Route[]; token?: string }) {
  const { routes } = options;
  return async function serveApi(request: Request): Promise<Response> {
    try {
      if (options.token !== undefined) checkBearerToken(request, options.token);
      const url = new URL(request.url);
      const path = url.pathname.replace(/\/+$/, '') || '/';
      const matching = routes.map((route) => ({ route, params: match(route.path, path) })).filter((m) => m.params);
      const found = matching.find(({ route }) => route.method === request.method);
      if (found) return await found.route.handle(request, url, found.params ?? {});
      if (matching.length === 0) {
        throw new GoondanError('E_SERVE_ROUTE_NOT_FOUND', `${request.method} ${path}: no such endpoint.`);
      }
      const allowed = matching.map(({ route }) => route.method).join(', ');
      const error = new GoondanError(
        'E_SERVE_ROUTE_NOT_FOUND',
        `${request.method} ${path}: this path takes ${allowed}.`,
      );
      return apiErrorResponse(error, { headers: { allow: allowed }, status: 405 });
    } catch (thrown) {
      const unauthorized = thrown instanceof GoondanError && thrown.code === 'E_SERVE_UNAUTHORIZED';
      return apiErrorResponse(thrown, unauthorized ? { headers: { 'www-authenticate': 'Bearer' } } : {});
    }
  };
}
