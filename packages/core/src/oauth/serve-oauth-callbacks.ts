import type { Bundle, OAuthAppResource } from '../config/resources.ts';
import { GoondanError } from '../errors/goondan-error.ts';
import type { OAuthHost } from './oauth-host.ts';
import type { StoredSession } from './oauth-store.ts';

/**
 * Listens on the loopback address of every authorizationCode app's redirectUri (127.0.0.1 only) and hands each
 * callback to the host. The page says whether it worked and, if not, the error code; never a token.
 */
export function serveOAuthCallbacks(options: {
  bundle: Bundle;
  host: OAuthHost;
  /** Told of each completed authorization, after the grant is stored. */
  onGranted?: (session: StoredSession) => void;
  /** Told of each callback that failed (forged ones too), after its page is decided. */
  onFailed?: (error: unknown) => void;
}): { stop(): Promise<void> } {
  const redirects = new Map<string, string[]>();
  for (const resource of options.bundle.resources.values()) {
    if (resource.kind !== 'OAuthApp') continue;
    const spec = (resource as OAuthAppResource).spec;
    if (spec.flow !== 'authorizationCode' || !spec.redirectUri) continue;
    const url = new URL(spec.redirectUri);
    redirects.set(url.port, [...(redirects.get(url.port) ?? []), url.pathname]);
  }
  const servers: ReturnType<typeof Bun.serve>[] = [];
  try {
    for (const [port, paths] of redirects) {
      servers.push(
        Bun.serve({
          hostname: '127.0.0.1',
          port: Number(port),
          async fetch(request) {
            const url = new URL(request.url);
            if (!paths.includes(url.pathname)) return new Response('Not found', { status: 404 });
            try {
              const session = await options.host.completeAuthorization(url.href);
              options.onGranted?.(session);
              return page(200, `Authorized ${session.app}. You can close this window.`);
            } catch (error) {
              const code = error instanceof GoondanError ? error.code : 'E_OAUTH_EXCHANGE_FAILED';
              try {
                options.onFailed?.(error);
              } catch {
                // An observer's failure does not change the page.
              }
              return page(400, `Authorization failed (${code}). Nothing was stored; start again.`);
            }
          },
        }),
      );
    }
  } catch (error) {
    // A port already taken: the servers started so far are not left listening.
    for (const server of servers) server.stop(true);
    throw error;
  }
  return {
    async stop() {
      // Not forced: the page of a callback being answered still goes out.
      await Promise.all(servers.map((server) => server.stop()));
    },
  };
}

function page(status: number, text: string): Response {
  return new Response(text, { status, headers: { 'content-type': 'text/plain; charset=utf-8' } });
}
