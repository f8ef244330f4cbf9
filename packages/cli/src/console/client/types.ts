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
  approval: { id: string; outcome: string; scope: string | null; by: string | null; reason: string | null } | null;
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

export interface TraceDetail {
  traceId: string;
  spans: Span[];
  audit: AuditEntry[];
  approvals: Approval[];
  problems: Problem[];
}
