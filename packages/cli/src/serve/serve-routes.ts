import { getConversation, getModel, health, listModels, postEvent } from './agent-routes.ts';
import { answerApproval, listApprovals } from './approval-routes.ts';
import { chatCompletions } from './chat-completions.ts';
import type { Route } from './serve-api.ts';
import { refusedWhileDraining, type ServeContext } from './serve-context.ts';

/** Every endpoint of `gdn serve` (docs/serve.md#http-api). */
export function serveRoutes(context: ServeContext, extra: Route[] = []): Route[] {
  const instance = (params: Record<string, string>) => ({ agent: params.agent!, instanceKey: params.key! });
  return [
    { method: 'GET', path: '/healthz', handle: () => health(context) },
    { method: 'GET', path: '/v1/models', handle: () => listModels(context) },
    { method: 'GET', path: '/v1/models/:model', handle: (_request, _url, params) => getModel(context, params.model!) },
    // New work, refused while the host drains (answers of approvals are not: running turns may wait for them).
    refusedWhileDraining(context, {
      method: 'POST',
      path: '/v1/chat/completions',
      handle: (request) => chatCompletions(request, context),
    }),
    refusedWhileDraining(context, {
      method: 'POST',
      path: '/v1/agents/:agent/instances/:key/events',
      handle: (request, _url, params) => postEvent(request, context, instance(params)),
    }),
    {
      method: 'GET',
      path: '/v1/agents/:agent/instances/:key/conversation',
      handle: (_request, url, params) => getConversation(url, context, instance(params)),
    },
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
    ...extra,
  ];
}
