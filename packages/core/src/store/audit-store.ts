import type { Database } from 'bun:sqlite';
import type { AuditEntry, PermissionDecision, RiskCategory } from '../permissions/permission-types.ts';
import { redactSecrets } from '../permissions/redact-secrets.ts';
import type { JsonValue } from '../types.ts';
import { toStoreError } from './to-store-error.ts';

/** An audit entry as stored: `args` and `output` redacted, and cut to a preview when their JSON was too long. */
export type AuditRecord = AuditEntry & { seq: number };

/** Which entries `AuditStore.query` returns. Every field narrows; none given means the newest entries. */
export interface AuditFilter {
  agent?: string;
  /** An exact tool name, or a glob where `*` matches any run of characters (`bash__*`). */
  tool?: string;
  decision?: string;
  status?: string;
  /** Only calls that asked a person: decision `ask`, or an approval recorded. */
  approvalsOnly?: boolean;
  /** Only entries at or after this time (epoch ms). */
  since?: number;
  /** Only the calls of this trace (across the trace's turns in this instance). */
  traceId?: string;
  /** Only the entries of this tool call id. */
  toolCallId?: string;
  /** How many of the newest matching entries (default 50); they come back oldest first. */
  limit?: number;
}

export interface AuditStoreOptions {
  /** Values to redact wherever they appear (e.g. secretValuesFromEnv(process.env)), besides the built-in rules. */
  secretValues?: readonly string[];
  /** Longest JSON text stored for args and for output; longer becomes a truncated preview. Default 8000. */
  maxFieldChars?: number;
}

export const DEFAULT_AUDIT_FIELD_CHARS = 8000;
export const DEFAULT_AUDIT_LIMIT = 50;

interface AuditRow {
  seq: number;
  at: number;
  agent: string;
  instance_key: string;
  turn_id: string | null;
  tool_call_id: string;
  trace_id: string | null;
  tool_name: string;
  category: string | null;
  source: string | null;
  decision: string;
  rule: string | null;
  direct: number;
  approval_id: string | null;
  approval_outcome: string | null;
  approval_scope: string | null;
  approved_by: string | null;
  approval_reason: string | null;
  duration_ms: number;
  status: string;
  error_code: string | null;
  args: string | null;
  output: string | null;
}

type Binding = string | number | null;
type Approval = NonNullable<AuditEntry['approval']>;

const insertSql = `INSERT INTO audit_log
  (at, agent, instance_key, turn_id, tool_call_id, trace_id, tool_name, category, source, decision, rule, direct,
   approval_id, approval_outcome, approval_scope, approved_by, approval_reason, duration_ms, status, error_code,
   args, output)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** A pattern for SQLite GLOB in which only `*` is a wildcard: `?` and `[` match themselves. */
function toSqlGlob(pattern: string): string {
  return pattern.replace(/[?[]/g, (special) => `[${special}]`);
}

function recordOf(row: AuditRow): AuditRecord {
  return {
    seq: row.seq,
    at: row.at,
    agent: row.agent,
    instanceKey: row.instance_key,
    turnId: row.turn_id,
    toolCallId: row.tool_call_id,
    traceId: row.trace_id,
    toolName: row.tool_name,
    category: row.category as RiskCategory | null,
    source: row.source,
    decision: row.decision as PermissionDecision | 'refused',
    rule: row.rule,
    direct: row.direct === 1,
    approval:
      row.approval_outcome === null
        ? null
        : {
            id: row.approval_id,
            outcome: row.approval_outcome as Approval['outcome'],
            scope: row.approval_scope as Approval['scope'],
            by: row.approved_by,
            reason: row.approval_reason,
          },
    durationMs: row.duration_ms,
    status: row.status as AuditEntry['status'],
    errorCode: row.error_code,
    args: row.args === null ? null : (JSON.parse(row.args) as JsonValue),
    output: row.output === null ? null : (JSON.parse(row.output) as JsonValue),
  };
}

/**
 * The audit log of one agent instance: a row per tool call that reached the executor, whatever became of it.
 * Arguments and outputs are redacted (redactSecrets) before they are written and never stored in the clear.
 *
 * @example
 * const audit = new AuditStore(db, { secretValues: secretValuesFromEnv(process.env) });
 * audit.append(entry);
 * audit.query({ tool: 'bash__*', decision: 'ask', since: Date.now() - 3_600_000 });
 */
export class AuditStore {
  private readonly secretValues: readonly string[];
  private readonly maxFieldChars: number;

  constructor(
    private readonly db: Database,
    options: AuditStoreOptions = {},
  ) {
    this.secretValues = options.secretValues ?? [];
    this.maxFieldChars = Math.max(0, Math.floor(options.maxFieldChars ?? DEFAULT_AUDIT_FIELD_CHARS));
  }

  /** Writes one entry; a SQLite failure about the file comes back as a GoondanError naming it. */
  append(entry: AuditEntry): void {
    const redact = (value: JsonValue) => redactSecrets(value, { secretValues: this.secretValues });
    const approval = entry.approval;
    const params: Binding[] = [
      entry.at,
      entry.agent,
      entry.instanceKey,
      entry.turnId,
      entry.toolCallId,
      entry.traceId,
      entry.toolName,
      entry.category,
      entry.source,
      entry.decision,
      entry.rule,
      entry.direct ? 1 : 0,
      approval?.id ?? null,
      approval?.outcome ?? null,
      approval?.scope ?? null,
      approval?.by ?? null,
      approval?.reason == null ? null : (redact(approval.reason) as string),
      entry.durationMs,
      entry.status,
      entry.errorCode,
      this.storedField(redact(entry.args ?? null)),
      entry.output === null ? null : this.storedField(redact(entry.output)),
    ];
    try {
      this.db.query<unknown, Binding[]>(insertSql).run(...params);
    } catch (error) {
      throw toStoreError(error, this.db.filename);
    }
  }

  /** The newest `limit` entries that match, returned oldest first. */
  /** Which of `toolCallIds` have a row already (a call interrupted by a kill is logged once, at recovery). */
  loggedCalls(toolCallIds: readonly string[], turnId: string | null): Set<string> {
    const logged = new Set<string>();
    // Within the turn: ids repeat across turns (a provider numbering each answer's calls from call_0).
    const statement = this.db.query<{ found: number }, [string, string | null]>(
      'SELECT 1 AS found FROM audit_log WHERE tool_call_id = ? AND turn_id IS ? LIMIT 1',
    );
    for (const id of toolCallIds) if (statement.get(id, turnId)) logged.add(id);
    return logged;
  }

  query(filter: AuditFilter = {}): AuditRecord[] {
    const where: string[] = [];
    const params: Binding[] = [];
    const match = (clause: string, value: Binding) => {
      where.push(clause);
      params.push(value);
    };
    if (filter.agent !== undefined) match('agent = ?', filter.agent);
    if (filter.tool !== undefined) {
      if (filter.tool.includes('*')) match('tool_name GLOB ?', toSqlGlob(filter.tool));
      else match('tool_name = ?', filter.tool);
    }
    if (filter.decision !== undefined) match('decision = ?', filter.decision);
    if (filter.status !== undefined) match('status = ?', filter.status);
    if (filter.since !== undefined) match('at >= ?', filter.since);
    if (filter.traceId !== undefined) match('trace_id = ?', filter.traceId);
    if (filter.toolCallId !== undefined) match('tool_call_id = ?', filter.toolCallId);
    if (filter.approvalsOnly) where.push("(approval_id IS NOT NULL OR decision = 'ask')");
    params.push(Math.max(0, Math.floor(filter.limit ?? DEFAULT_AUDIT_LIMIT)));
    const sql = `SELECT * FROM audit_log ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY at DESC, seq DESC LIMIT ?`;
    try {
      return this.db
        .query<AuditRow, Binding[]>(sql)
        .all(...params)
        .map(recordOf)
        .reverse();
    } catch (error) {
      throw toStoreError(error, this.db.filename);
    }
  }

  /** JSON text of a redacted value, or of `{ truncated, originalChars, preview }` when it is too long. */
  private storedField(value: JsonValue): string {
    const json = JSON.stringify(value);
    if (json.length <= this.maxFieldChars) return json;
    // Escaping in the preview can lengthen it, so shrink it until the whole object fits.
    let previewChars = this.maxFieldChars;
    for (;;) {
      const text = JSON.stringify({
        truncated: true,
        originalChars: json.length,
        preview: json.slice(0, previewChars),
      });
      if (text.length <= this.maxFieldChars || previewChars === 0) return text;
      previewChars = Math.max(0, previewChars - (text.length - this.maxFieldChars));
    }
  }
}
