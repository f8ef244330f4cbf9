// The JSON the console's endpoints answer (mirrors console-data.ts; the browser cannot import @goondan/core).

export interface Span {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  kind: 'turn' | 'step' | 'model' | 'tool';
  name: string;
  startedAt: number;
  endedAt: number | null;
  status: 'ok' | 'error' | 'running' | 'cancelled';
  attributes: Record<string, unknown>;
  agent: string;
  instanceKey: string;
}

export interface Approval {
  id: string;
  agent: string;
  instanceKey: string;
  turnId: string | null;
  traceId: string | null;
  toolCallId: string;
  toolName: string;
  category: string;
  args: unknown;
  /** Characters of the arguments' JSON the server left out (arguments of megabytes), when it cut them. */
  argsCutChars?: number;
  rule: string;
  status: 'pending' | 'approved' | 'denied' | 'expired' | 'cancelled';
  scope: string | null;
  decidedBy: string | null;
  reason: string | null;
  createdAt: number;
  expiresAt: number;
  decidedAt: number | null;
}

export interface AuditEntry {
  seq: number;
  at: number;
  agent: string;
  instanceKey: string;
  turnId: string | null;
  traceId: string | null;
  toolCallId: string;
  toolName: string;
  category: string | null;
  source: string | null;
  decision: string;
  rule: string | null;
  direct: boolean;
  approval: {
    id: string | null;
    outcome: string;
    scope: string | null;
    by: string | null;
    reason: string | null;
  } | null;
  durationMs: number;
  status: string;
  errorCode: string | null;
  args: unknown;
  output: unknown;
}

export interface Problem {
  agent: string;
  instanceKey: string;
  code: string;
  message: string;
  suggestion?: string;
}

/**
 * The outline of a trace (`GET /console/api/traces/ID`): every row of its waterfall in the order drawn, column by
 * column (about 45 bytes a row), built by the server (trace-tree.ts). A span's attributes, audit row and approval
 * come with its details (`GET /console/api/traces/ID/spans/SPAN`), when it is opened.
 */
export interface TraceOutline {
  traceId: string;
  /** Epoch ms of the earliest row; the rows' times are offsets from it. */
  start: number;
  /** Epoch ms of the latest end (the server's clock for rows still running). */
  end: number;
  status: 'running' | 'ok' | 'error' | 'cancelled';
  /** Stored spans (rows not counted: calls waiting for approval, a caller's step and call not stored yet). */
  spans: number;
  agents: string[];
  errorCodes: string[];
  /** The agent instances that stored rows (`rows.source` points here). */
  sources: { agent: string; instanceKey: string }[];
  /** Row names (`rows.name` points here). */
  names: string[];
  rows: OutlineRows;
  /** The calls waiting for approval shown as rows (`rows.approval` points here). */
  approvals: Approval[];
  problems: Problem[];
}

/** Row kinds, one letter each in `OutlineRows.kind`. */
export const KIND_LETTERS = { turn: 't', step: 's', model: 'm', tool: 'c', waiting: 'w' } as const;
/** Row statuses, one letter each in `OutlineRows.status`. */
export const STATUS_LETTERS = { ok: 'o', error: 'e', running: 'r', cancelled: 'x', waiting: 'w' } as const;

/** Row flags (bits of `OutlineRows.flags`). */
export const ROW_CROSS_AGENT = 1;
/** The row is a span not stored yet: the step and call of a caller whose step still runs. */
export const ROW_PENDING = 2;

export interface OutlineRows {
  /** Span id, or `approval:ID` for a call waiting for approval. */
  id: string[];
  depth: number[];
  /** Rows under this one (its whole subtree, which follows it), so folding it skips them at once. */
  size: number[];
  /** Direct children. */
  children: number[];
  /** One letter a row (KIND_LETTERS). */
  kind: string;
  /** One letter a row (STATUS_LETTERS). */
  status: string;
  name: number[];
  /** Offsets from `start`, ms. */
  start: number[];
  /** Offset of the end from `start`, ms; -1 while it runs. */
  end: number[];
  source: number[];
  flags: number[];
  /** By row index, only where there is one: tool calls of a step that ran at once (more than one). */
  parallel: Record<string, number>;
  errorCode: Record<string, string>;
  /** Input and output tokens of model calls. */
  tokens: Record<string, [number, number]>;
  approval: Record<string, number>;
  /** Tool calls that asked a person: the approval's id (to follow an approval to its call once it ran). */
  asked: Record<string, string>;
}

/** One span opened (`GET /console/api/traces/ID/spans/SPAN`): all its attributes, its audit row and approval. */
export interface SpanDetail {
  span: Span;
  audit: AuditEntry | null;
  approval: Approval | null;
}
