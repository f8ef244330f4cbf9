import {
  type ApprovalAnswer,
  type ApprovalRecord,
  ApprovalStore,
  GoondanError,
  redactSecrets,
  secretValuesFromEnv,
} from '@goondan/core';
import { anyText, instanceKeyFilter, oneOf, readFilters } from '../console/console-filters.ts';
import { type InstanceProblem, readInstances } from '../console/instance-reader.ts';
import { apiErrorResponse, badRequest } from './api-error.ts';
import { readJsonBody, refuseUnknownFields } from './read-json-body.ts';
import type { ServeContext } from './serve-context.ts';

/** How long answering waits for another writer of the instance database (openInstanceDatabase's default). */
const ANSWER_BUSY_TIMEOUT_MS = 5000;

/** What the approval endpoints need: the bundle whose instance databases hold the approvals. */
export type ApprovalContext = Pick<ServeContext, 'bundle'>;

/**
 * `use` on the approvals of every instance database. One that cannot be read (corrupt, from a newer goondan) is a
 * problem in the answer, not a failure of the request: the approvals of every other instance stay listed and answerable.
 */
function eachStore<T>(
  context: ApprovalContext,
  use: (store: ApprovalStore, address: string) => T,
  options: { busyTimeoutMs?: number } = {},
): { found: T[]; problems: InstanceProblem[] } {
  const { results, problems } = readInstances(
    context.bundle().rootDir,
    (db, file) => use(new ApprovalStore(db), `${file.agentName}/${file.instanceKey}`),
    options,
  );
  return { found: results.map((result) => result.value), problems };
}

/**
 * GET /v1/approvals[?agent=A&instance=K&all=true] — pending approvals (all: every status), oldest first, and the
 * instance databases that could not be read (`problems`).
 */
export function listApprovals(url: URL, context: ApprovalContext): Response {
  // A misspelt filter (`instnace=`) must not widen the answer to every instance's approvals: it is a 400.
  const filters = readFilters(url, { agent: anyText, instance: instanceKeyFilter, all: oneOf(['true', 'false']) });
  const agent = filters.agent ?? null;
  const instance = filters.instance ?? null;
  const all = filters.all === 'true';
  const now = Date.now();
  const { found, problems } = eachStore(context, (store) =>
    store.list(all ? { limit: 1000 } : { status: 'pending', limit: 1000 }),
  );
  const records = found
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
  return Response.json({ approvals: records, problems });
}

function answerOf(action: 'approve' | 'deny', body: Record<string, unknown>): ApprovalAnswer {
  // A reason goes with deny, a scope with approve (the model reads a reason; an approval has none).
  refuseUnknownFields(body, action === 'approve' ? ['scope', 'by'] : ['reason', 'by']);
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

/** Longest `by` kept: a name, not a document. */
const MAX_BY_CHARS = 200;

/** Longest reason read for redaction; the store keeps the first 2000 characters of what is left. */
const MAX_REASON_READ_CHARS = 65_536;

/**
 * An answer as it is stored: its reason and `by` with secrets redacted (docs/audit.md#redaction), as the call's
 * arguments are; a reason of megabytes is cut first. What `gdn approvals` and the HTTP API store.
 */
export function redactedAnswer(answer: ApprovalAnswer): ApprovalAnswer {
  const secretValues = secretValuesFromEnv(process.env);
  const text = (value: string) => {
    const redacted = redactSecrets(
      value.length > MAX_REASON_READ_CHARS ? value.slice(0, MAX_REASON_READ_CHARS) : value,
      {
        secretValues,
      },
    );
    return typeof redacted === 'string' ? redacted : '[REDACTED]';
  };
  return {
    ...answer,
    ...(typeof answer.reason === 'string' ? { reason: text(answer.reason) } : {}),
    ...(typeof answer.by === 'string' ? { by: text(answer.by).slice(0, MAX_BY_CHARS) } : {}),
  };
}

/**
 * E_STORE_OPEN for an answer the instance database did not take (another process holding its write lock past the
 * busy timeout, a full disk): nothing was answered, and saying so beats a stack trace (`gdn approvals` too).
 */
export function notWritten(id: string, address: string, thrown: unknown): GoondanError {
  const reason = thrown instanceof Error ? thrown.message : String(thrown);
  const message = `Approval '${id}' of ${address} could not be answered: ${reason}.`;
  const suggestion =
    'The instance database could not be written (another process writing it for longer than the busy timeout, a full disk): answer again once that is over.';
  return new GoondanError('E_STORE_OPEN', message, { suggestion, cause: thrown });
}

/** Longest part of an unknown id echoed back in an error. */
const MAX_SHOWN_ID_CHARS = 100;

function shortId(id: string): string {
  return id.length > MAX_SHOWN_ID_CHARS ? `${id.slice(0, MAX_SHOWN_ID_CHARS)}… (${id.length} characters)` : id;
}

/**
 * POST /v1/approvals/:id/approve|deny[?agent=A&instance=K] — `{ scope?, reason?, by? }`. The answer is stored in
 * the instance's database, where its waiting agent picks it up (as `gdn approvals` does); the answer is the
 * resolved record. The reason and `by` are stored with secrets redacted. An id held by more than one instance (a
 * copied instance directory) is answered in none: 409 E_APPROVAL_AMBIGUOUS, until `agent` and `instance` name one.
 */
export async function answerApproval(
  request: Request,
  context: ApprovalContext,
  params: { id: string; action: 'approve' | 'deny' },
): Promise<Response> {
  const filters = readFilters(new URL(request.url), { agent: anyText, instance: instanceKeyFilter });
  const given = answerOf(params.action, await readJsonBody(request));
  const answer = redactedAnswer(given);
  const chosen = (address: string) =>
    (filters.agent === undefined || address.split('/')[0] === filters.agent) &&
    (filters.instance === undefined || address.slice(address.indexOf('/') + 1) === filters.instance);
  const shown = shortId(params.id);
  // First the instances that hold the id (reading only), then the answer in the one that does.
  const held = eachStore(context, (store, address) => (chosen(address) && store.get(params.id) ? address : null));
  const holders = held.found.filter((address) => address !== null);
  if (holders.length > 1) {
    const ambiguous = new GoondanError(
      'E_APPROVAL_AMBIGUOUS',
      `Approval '${shown}' is in ${holders.length} instances (${holders.join(', ')}); nothing was answered.`,
    );
    return apiErrorResponse(ambiguous);
  }
  const [holder] = holders;
  // The database that holds it answers for it: refused (already answered, expired) or not written (another process
  // writing it past the busy timeout, a full disk) is that database's word, never "no such approval".
  const { found, problems } = eachStore(
    context,
    (store, address) => {
      if (address !== holder || !store.get(params.id)) return null;
      try {
        return { record: store.answerPending(params.id, answer, address) };
      } catch (thrown) {
        return { refused: thrown instanceof GoondanError ? thrown : notWritten(shown, address, thrown) };
      }
    },
    // A write that waits for the agent's own commits, as `gdn approvals` does (not the 1 s of a console view).
    { busyTimeoutMs: ANSWER_BUSY_TIMEOUT_MS },
  );
  const outcome = found.find((value) => value !== null);
  if (outcome && 'refused' in outcome) throw outcome.refused;
  if (outcome) return Response.json({ approval: outcome.record });
  const unread = [...held.problems, ...problems].map(
    (problem) => `${problem.agent}/${problem.instanceKey} (${problem.code})`,
  );
  throw new GoondanError(
    'E_APPROVAL_NOT_FOUND',
    `No approval '${shown}' in any instance${unread.length > 0 ? `; could not read ${[...new Set(unread)].join(', ')}` : ''}.`,
  );
}
