import type { Database } from 'bun:sqlite';
import { type ApprovalRecord, ApprovalStore, AuditStore, GoondanError, type JsonValue } from '@goondan/core';
import type { SpanDetail, TraceOutline } from './client/types.ts';
import { shownApproval, shownAuditEntry } from './console-bounds.ts';
import type { ConsoleSource } from './console-source.ts';
import { readInstances } from './instance-reader.ts';
import { buildOutline, type SpanCaller, type TreeSpan } from './trace-tree.ts';

const pendingNow = (record: ApprovalRecord, now: number): ApprovalRecord =>
  record.status === 'pending' && record.expiresAt <= now ? { ...record, status: 'expired' } : record;

function checkTraceId(traceId: string): void {
  if (!/^[0-9a-f]{32}$/.test(traceId)) {
    throw new GoondanError(
      'E_CONSOLE_TRACE_NOT_FOUND',
      `'${traceId.length > 40 ? `${traceId.slice(0, 40)}…` : traceId}' is not a trace id (32 hexadecimal characters).`,
      {
        suggestion: 'Pick a trace from the list (GET /console/api/traces) or from gdn trace --json.',
      },
    );
  }
}

function notFound(traceId: string): GoondanError {
  return new GoondanError('E_CONSOLE_TRACE_NOT_FOUND', `No instance of this bundle stored a trace ${traceId}.`, {
    suggestion: 'It may have been pruned (each instance keeps its last 1000 traces); pick one from the trace list.',
  });
}

/** Throws E_CONSOLE_TRACE_NOT_FOUND unless some instance stored a span of the trace (cheap: one row looked up). */
export function checkTraceExists(source: ConsoleSource, traceId: string): void {
  checkTraceId(traceId);
  const { results } = readInstances(source.rootDir(), (db) =>
    db.query<{ one: number }, [string]>('SELECT 1 AS one FROM trace_spans WHERE trace_id = ? LIMIT 1').get(traceId),
  );
  if (!results.some((result) => result.value)) throw notFound(traceId);
}

type OutlineRow = [
  spanId: string,
  parentSpanId: string | null,
  kind: TreeSpan['kind'],
  name: string,
  startedAt: number,
  endedAt: number | null,
  status: TreeSpan['status'],
  errorCode: unknown,
  inputTokens: number | null,
  outputTokens: number | null,
  toolCallId: string | null,
  turnId: string | null,
  caller: string | null,
];

// Only what the waterfall draws: a step's catalog, stacks and messages stay in the database until a span is opened.
// A name or an error code is cut to a row's width: a model may call a tool by a name of megabytes, and each call's
// span is named after it (the span's details, opened one at a time, have it whole).
const outlineSql = `SELECT span_id, parent_span_id, kind,
  CASE WHEN length(name) > 200 THEN substr(name, 1, 200) || '…' ELSE name END AS name, started_at, ended_at, status,
  CASE WHEN instr(attributes, '"errorCode"') AND json_type(attributes, '$.errorCode') = 'text'
    THEN substr(json_extract(attributes, '$.errorCode'), 1, 64) END AS error_code,
  CASE kind WHEN 'model' THEN json_extract(attributes, '$.inputTokens') END AS input_tokens,
  CASE kind WHEN 'model' THEN json_extract(attributes, '$.outputTokens') END AS output_tokens,
  CASE kind WHEN 'tool' THEN json_extract(attributes, '$.toolCallId') END AS tool_call_id,
  CASE kind WHEN 'turn' THEN json_extract(attributes, '$.turnId') END AS turn_id,
  CASE kind WHEN 'turn' THEN json_extract(attributes, '$.caller') END AS caller
  FROM trace_spans WHERE trace_id = ?`;

function callerOf(text: string | null): SpanCaller | null {
  if (!text) return null;
  try {
    const caller = JSON.parse(text) as SpanCaller;
    return typeof caller.stepSpanId === 'string' && typeof caller.turnSpanId === 'string' ? caller : null;
  } catch {
    return null;
  }
}

/**
 * The outline of one trace across every instance that stored part of it (docs/console.md): its waterfall rows,
 * compact, with the calls waiting for approval. Throws E_CONSOLE_TRACE_NOT_FOUND when no instance has a span of it.
 */
export function consoleTraceOutline(source: ConsoleSource, traceId: string): TraceOutline {
  checkTraceId(traceId);
  const now = Date.now();
  const sources: { agent: string; instanceKey: string }[] = [];
  const spans: TreeSpan[] = [];
  const approvals: ApprovalRecord[] = [];
  const { problems } = readInstances(source.rootDir(), (db, file) => {
    // Arrays, not an object a row: 10,000 rows read in a few milliseconds.
    const rows = db.query<OutlineRow, [string]>(outlineSql).values(traceId) as OutlineRow[];
    if (rows.length === 0) return;
    const at = sources.push({ agent: file.agentName, instanceKey: file.instanceKey }) - 1;
    for (const [spanId, parentSpanId, kind, name, startedAt, endedAt, status, errorCode, ...rest] of rows) {
      const [inputTokens, outputTokens, toolCallId, turnId, caller] = rest;
      spans.push({
        spanId,
        parentSpanId,
        kind,
        name,
        startedAt,
        endedAt,
        status,
        source: at,
        errorCode: typeof errorCode === 'string' ? errorCode : null,
        inputTokens,
        outputTokens,
        toolCallId,
        turnId,
        caller: callerOf(caller),
      });
    }
    for (const record of new ApprovalStore(db).list({ limit: 1000 })) {
      if (record.traceId === traceId) approvals.push(shownApproval(pendingNow(record, now)));
    }
  });
  if (spans.length === 0) throw notFound(traceId);
  spans.sort((a, b) => a.startedAt - b.startedAt);
  return buildOutline({ traceId, spans, sources, approvals, problems, now });
}

interface SpanRowFull {
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  kind: TreeSpan['kind'];
  name: string;
  started_at: number;
  ended_at: number | null;
  status: TreeSpan['status'];
  attributes: string;
}

/** One span with all its attributes, its audit row and its approval (tool calls), read when the span is opened. */
export function consoleSpanDetail(source: ConsoleSource, traceId: string, spanId: string): SpanDetail {
  checkTraceId(traceId);
  const now = Date.now();
  const read = (db: Database, agent: string, instanceKey: string): SpanDetail | null => {
    const row = db
      .query<SpanRowFull, [string, string]>('SELECT * FROM trace_spans WHERE span_id = ? AND trace_id = ?')
      .get(spanId, traceId);
    if (!row) return null;
    const attributes = JSON.parse(row.attributes) as Record<string, JsonValue>;
    const span = {
      traceId,
      spanId,
      parentSpanId: row.parent_span_id,
      kind: row.kind,
      name: row.name,
      startedAt: row.started_at,
      endedAt: row.ended_at,
      status: row.status,
      attributes,
      agent,
      instanceKey,
    };
    const callId = typeof attributes.toolCallId === 'string' ? attributes.toolCallId : null;
    if (row.kind !== 'tool' || !callId) return { span, audit: null, approval: null };
    const [audit] = new AuditStore(db).query({ traceId, toolCallId: callId, limit: 1 });
    const toolName = typeof attributes.toolName === 'string' ? attributes.toolName : row.name.replace(/^tool /, '');
    const approval = new ApprovalStore(db).forToolCall(callId, { toolName, since: row.started_at - 1 });
    return {
      span,
      audit: audit ? shownAuditEntry(audit) : null,
      approval: approval ? shownApproval(pendingNow(approval, now)) : null,
    };
  };
  const { results } = readInstances(source.rootDir(), (db, file) => read(db, file.agentName, file.instanceKey));
  const found = results.find((result) => result.value)?.value;
  if (!found) {
    throw new GoondanError('E_CONSOLE_TRACE_NOT_FOUND', `Trace ${traceId} has no stored span ${spanId}.`, {
      suggestion: 'A step and its calls are stored when the step ends; open the span again then.',
    });
  }
  return found;
}
