import type { Bundle } from '@goondan/core';
import { answerApproval, listApprovals } from '../serve/approval-routes.ts';
import { checkListenAddress } from '../serve/check-bearer-token.ts';
import { BUN_MAX_REQUEST_BODY_SIZE } from '../serve/read-json-body.ts';
import { createServeApi, type Route } from '../serve/serve-api.ts';
import { toListenError } from '../to-listen-error.ts';
import { consoleRoutes } from './console-routes.ts';

export interface ConsoleServer {
  url: string;
  stop(): Promise<void>;
}

/**
 * The web console over a bundle's stored state, without running its agents (`gdn trace --serve`): traces, audit
 * log, conversations, schedules, and answering approvals that agents elsewhere (gdn run, gdn chat) wait for.
 * Loopback unless a token is given, with the rules of gdn serve (docs/serve.md#security).
 */
export function startConsoleServer(options: {
  bundle: Bundle;
  hostname: string;
  port: number;
  token?: string;
  allowedOrigins?: string[];
}): ConsoleServer {
  checkListenAddress(options.hostname, options.token, 'gdn trace --serve');
  const { bundle } = options;
  const context = { bundle: () => bundle };
  const approvals: Route[] = [
    { method: 'GET', path: '/v1/approvals', handle: (_request, url) => listApprovals(url, context) },
    {
      method: 'POST',
      path: '/v1/approvals/:id/approve',
      handle: (request, _url, params) => answerApproval(request, context, { id: params.id!, action: 'approve' }),
    },
    {
      method: 'POST',
      path: '/v1/approvals/:id/deny',
      handle: (request, _url, params) => answerApproval(request, context, { id: params.id!, action: 'deny' }),
    },
  ];
  const agents = [...bundle.resources.values()].filter((r) => r.kind === 'Agent').map((agent) => agent.metadata.name);
  let server: ReturnType<typeof Bun.serve>;
  try {
    server = Bun.serve({
      hostname: options.hostname,
      port: options.port,
      idleTimeout: 0,
      // The API answers an oversized body with its coded 413 (createServeApi); Bun's own bare 413 never comes first.
      maxRequestBodySize: BUN_MAX_REQUEST_BODY_SIZE,
      fetch: createServeApi({
        routes: [
          ...consoleRoutes({ mode: 'bundle', rootDir: () => bundle.rootDir, agents: () => agents }),
          ...approvals,
        ],
        allowedOrigins: options.allowedOrigins ?? [],
        ...(options.token ? { token: options.token } : {}),
      }),
    });
  } catch (thrown) {
    throw toListenError(
      thrown,
      { hostname: options.hostname ?? '127.0.0.1', port: options.port ?? 0 },
      'gdn trace --serve',
    );
  }
  return {
    url: server.url.href.replace(/\/$/, ''),
    stop: () => server.stop(true),
  };
}
