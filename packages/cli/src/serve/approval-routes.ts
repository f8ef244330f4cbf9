import {
  type ApprovalAnswer,
  type ApprovalRecord,
  ApprovalStore,
  GoondanError,
  listInstanceDatabases,
  openInstanceDatabase,
} from '@goondan/core';
import { badRequest } from './api-error.ts';
import { readJsonBody } from './read-json-body.ts';
import type { ServeContext } from './serve-context.ts';

/** What the approval endpoints need: the bundle whose instance databases hold the approvals. */
export type ApprovalContext = Pick<ServeContext, 'bundle'>;

function eachStore<T>(context: ApprovalContext, use: (store: ApprovalStore, address: string) => T | null): T[] {
  const found: T[] = [];
  for (const file of listInstanceDatabases({ rootDir: context.bundle().rootDir })) {
    const db = openInstanceDatabase(file.databaseFile);
    try {
      const result = use(new ApprovalStore(db), `${file.agentName}/${file.instanceKey}`);
      if (result !== null) found.push(result);
    } finally {
      db.close();
    }
  }
  return found;
}

/** GET /v1/approvals[?agent=A&instance=K&all=true] — pending approvals (all: every status), oldest first. */
export function listApprovals(url: URL, context: ApprovalContext): Response {
  const agent = url.searchParams.get('agent');
  const instance = url.searchParams.get('instance');
  const all = url.searchParams.get('all') === 'true';
  const now = Date.now();
  const records = eachStore(context, (store) => store.list(all ? { limit: 1000 } : { status: 'pending', limit: 1000 }))
    .flat()
    // A pending approval past its expiry is expired, whether or not its agent has noticed yet.
    .map((record) =>
      record.status === 'pending' && record.expiresAt <= now ? { ...record, status: 'expired' as const } : record,
    )
    .filter(
      (record: ApprovalRecord) =>
        (all || record.status === 'pending') &&
        (agent === null || record.agent === agent) &&
        (instance === null || record.instanceKey === instance),
    )
    .sort((a, b) => a.createdAt - b.createdAt);
  return Response.json({ approvals: records });
}

function answerOf(action: 'approve' | 'deny', body: Record<string, unknown>): ApprovalAnswer {
  const by = body.by ?? 'http';
  if (typeof by !== 'string' || by === '') throw badRequest("'by' must be a non-empty string.");
  if (action === 'approve') {
    const scope = body.scope ?? 'once';
    if (scope !== 'once' && scope !== 'conversation') throw badRequest("'scope' must be 'once' or 'conversation'.");
    return { action, scope, by };
  }
  if (body.reason !== undefined && typeof body.reason !== 'string') throw badRequest("'reason' must be a string.");
  return { action, by, ...(body.reason ? { reason: body.reason } : {}) };
}

/**
 * POST /v1/approvals/:id/approve|deny — `{ scope?, reason?, by? }`. The answer is stored in the instance's
 * database, where its waiting agent picks it up (as `gdn approvals` does); the answer is the resolved record.
 */
export async function answerApproval(
  request: Request,
  context: ApprovalContext,
  params: { id: string; action: 'approve' | 'deny' },
): Promise<Response> {
  const answer = answerOf(params.action, await readJsonBody(request));
  const [resolved] = eachStore(context, (store, address) =>
    store.get(params.id) ? store.answerPending(params.id, answer, address) : null,
  );
  if (!resolved) throw new GoondanError('E_APPROVAL_NOT_FOUND', `No approval '${params.id}' in any instance.`);
  return Response.json({ approval: resolved });
}
