import type { Database } from 'bun:sqlite';
import { GoondanError } from '../errors/goondan-error.ts';
import type {
  ApprovalAnswer,
  ApprovalRecord,
  ApprovalStatus,
  CallSource,
  RiskCategory,
} from '../permissions/permission-types.ts';
import type { JsonValue, ToolResult } from '../types.ts';

interface ApprovalRow {
  id: string;
  agent: string;
  instance_key: string;
  turn_id: string | null;
  trace_id: string | null;
  tool_call_id: string;
  tool_name: string;
  category: string;
  args: string;
  rule: string;
  source: string;
  status: ApprovalStatus;
  scope: 'once' | 'conversation' | null;
  decided_by: string | null;
  reason: string | null;
  created_at: number;
  expires_at: number;
  decided_at: number | null;
}

function recordOf(row: ApprovalRow): ApprovalRecord {
  return {
    id: row.id,
    agent: row.agent,
    instanceKey: row.instance_key,
    turnId: row.turn_id,
    traceId: row.trace_id,
    toolCallId: row.tool_call_id,
    toolName: row.tool_name,
    category: row.category as RiskCategory,
    args: JSON.parse(row.args) as JsonValue,
    rule: row.rule,
    source: JSON.parse(row.source) as CallSource,
    status: row.status,
    scope: row.scope,
    decidedBy: row.decided_by,
    reason: row.reason,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    decidedAt: row.decided_at,
  };
}

/** `?, ?, ?` for an IN list of `values`. */
function placeholders(values: readonly unknown[]): string {
  return values.map(() => '?').join(', ');
}

/** Longest reason kept (it reaches the model inside E_APPROVAL_DENIED). */
export const MAX_APPROVAL_REASON_CHARS = 2000;

/**
 * Approvals of one agent instance, the "approve for this conversation" grants, and checkpoints of tool results
 * that finished while other calls of their step waited. Everything lives in the instance database, so a pending
 * approval survives a restart and another process (`gdn approvals approve`) can answer it.
 */
export class ApprovalStore {
  constructor(private readonly db: Database) {}

  create(record: ApprovalRecord): void {
    this.db
      .query(
        `INSERT INTO approvals (id, agent, instance_key, turn_id, trace_id, tool_call_id, tool_name, category, args,
          rule, source, status, scope, decided_by, reason, created_at, expires_at, decided_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        record.id,
        record.agent,
        record.instanceKey,
        record.turnId,
        record.traceId,
        record.toolCallId,
        record.toolName,
        record.category,
        JSON.stringify(record.args),
        record.rule,
        JSON.stringify(record.source),
        record.status,
        record.scope,
        record.decidedBy,
        record.reason,
        record.createdAt,
        record.expiresAt,
        record.decidedAt,
      );
  }

  get(id: string): ApprovalRecord | null {
    const row = this.db.query<ApprovalRow, [string]>('SELECT * FROM approvals WHERE id = ?').get(id);
    return row ? recordOf(row) : null;
  }

  /**
   * The newest approval raised for this very call: same call id and tool, and the same turn (or, when the turn is
   * not known, raised no earlier than `since`). Providers may reuse call ids across turns, so the id alone never
   * identifies a call: a decision about one call must not approve another.
   */
  forToolCall(
    toolCallId: string,
    match: { toolName: string; turnId?: string | null; since?: number },
  ): ApprovalRecord | null {
    const row =
      match.turnId !== undefined
        ? this.db
            .query<ApprovalRow, [string, string, string | null]>(
              `SELECT * FROM approvals WHERE tool_call_id = ? AND tool_name = ? AND turn_id IS ?
               ORDER BY created_at DESC, rowid DESC LIMIT 1`,
            )
            .get(toolCallId, match.toolName, match.turnId)
        : this.db
            .query<ApprovalRow, [string, string, number]>(
              `SELECT * FROM approvals WHERE tool_call_id = ? AND tool_name = ? AND created_at >= ?
               ORDER BY created_at DESC, rowid DESC LIMIT 1`,
            )
            .get(toolCallId, match.toolName, match.since ?? 0);
    return row ? recordOf(row) : null;
  }

  /** Approvals oldest first; only `status` ones when given. */
  list(options: { status?: ApprovalStatus; limit?: number } = {}): ApprovalRecord[] {
    const limit = options.limit ?? 100;
    const rows = options.status
      ? this.db
          .query<ApprovalRow, [string, number]>(
            'SELECT * FROM approvals WHERE status = ? ORDER BY created_at DESC, rowid DESC LIMIT ?',
          )
          .all(options.status, limit)
      : this.db
          .query<ApprovalRow, [number]>('SELECT * FROM approvals ORDER BY created_at DESC, rowid DESC LIMIT ?')
          .all(limit);
    return rows.reverse().map(recordOf);
  }

  /**
   * Records a person's answer if the approval is still pending and not expired; returns the updated record, or
   * the record as it stands when it was already decided (nothing changes), or null when there is no such approval.
   */
  answer(id: string, answer: ApprovalAnswer, now = Date.now()): ApprovalRecord | null {
    this.apply(id, answer, now);
    return this.get(id);
  }

  /** Writes the answer when the approval is still pending and not expired; true when this answer was recorded. */
  private apply(id: string, answer: ApprovalAnswer, now: number): boolean {
    const status: ApprovalStatus = answer.action === 'approve' ? 'approved' : 'denied';
    const scope = answer.action === 'approve' ? (answer.scope ?? 'once') : null;
    const reason = answer.reason === undefined ? null : answer.reason.slice(0, MAX_APPROVAL_REASON_CHARS);
    const by = answer.by ?? 'user';
    return this.db.transaction(() => {
      const changed = this.db
        .query(
          `UPDATE approvals SET status = ?, scope = ?, decided_by = ?, reason = ?, decided_at = ?
           WHERE id = ? AND status = 'pending' AND expires_at > ?`,
        )
        .run(status, scope, by, reason, now, id, now);
      if (changed.changes === 0) return false;
      if (scope === 'conversation') {
        const record = this.get(id);
        if (record) this.addGrant(record.toolName, { approvalId: id, by, now });
      }
      return true;
    })();
  }

  /**
   * Answers an approval that must still be pending (what a person's answer from any front end goes through).
   * @throws GoondanError E_APPROVAL_NOT_FOUND when there is no such approval, it was already decided, or it
   *   expired before the answer came (it is then marked expired).
   */
  answerPending(id: string, answer: ApprovalAnswer, where = 'this instance'): ApprovalRecord {
    if (this.apply(id, answer, Date.now())) return this.get(id)!;
    // Not recorded: say why (another front end may have answered it a moment ago).
    const current = this.get(id);
    if (!current) throw new GoondanError('E_APPROVAL_NOT_FOUND', `No approval '${id}' in ${where}.`);
    if (current.status !== 'pending')
      throw new GoondanError('E_APPROVAL_NOT_FOUND', `Approval '${id}' is already ${current.status}.`);
    this.close(id, 'expired');
    throw new GoondanError('E_APPROVAL_NOT_FOUND', `Approval '${id}' expired before it was answered.`);
  }

  /** Ends a pending approval without a person's answer (timeout or a cancelled turn). */
  close(id: string, status: 'expired' | 'cancelled', now = Date.now()): ApprovalRecord | null {
    this.db
      .query(`UPDATE approvals SET status = ?, decided_at = ? WHERE id = ? AND status = 'pending'`)
      .run(status, now, id);
    return this.get(id);
  }

  /** Statuses of several approvals at once (the waiting process polls for answers given by other processes). */
  statuses(ids: readonly string[]): Map<string, ApprovalStatus> {
    const result = new Map<string, ApprovalStatus>();
    if (ids.length === 0) return result;
    const rows = this.db
      .query<{ id: string; status: ApprovalStatus }, string[]>(
        `SELECT id, status FROM approvals WHERE id IN (${placeholders(ids)})`,
      )
      .all(...ids);
    for (const row of rows) result.set(row.id, row.status);
    return result;
  }

  grant(toolName: string): { approvalId: string | null; by: string | null } | null {
    const row = this.db
      .query<{ approval_id: string | null; granted_by: string | null }, [string]>(
        'SELECT approval_id, granted_by FROM approval_grants WHERE tool_name = ?',
      )
      .get(toolName);
    return row ? { approvalId: row.approval_id, by: row.granted_by } : null;
  }

  addGrant(toolName: string, options: { approvalId?: string; by?: string; now?: number } = {}): void {
    this.db
      .query(
        `INSERT INTO approval_grants (tool_name, approval_id, granted_by, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (tool_name) DO UPDATE SET approval_id = excluded.approval_id, granted_by = excluded.granted_by`,
      )
      .run(toolName, options.approvalId ?? null, options.by ?? null, options.now ?? Date.now());
  }

  /** A new conversation starts without grants; pending approvals of the old one are cancelled. */
  resetConversation(now = Date.now()): void {
    this.db.transaction(() => {
      this.db.run('DELETE FROM approval_grants');
      this.db.run('DELETE FROM tool_result_checkpoints');
      this.db.query(`UPDATE approvals SET status = 'cancelled', decided_at = ? WHERE status = 'pending'`).run(now);
    })();
  }

  saveResult(toolCallId: string, turnId: string | null, result: ToolResult): void {
    this.db
      .query(
        'INSERT OR REPLACE INTO tool_result_checkpoints (tool_call_id, turn_id, result, created_at) VALUES (?, ?, ?, ?)',
      )
      .run(toolCallId, turnId, JSON.stringify(result), Date.now());
  }

  savedResults(toolCallIds: readonly string[]): Map<string, ToolResult> {
    const result = new Map<string, ToolResult>();
    if (toolCallIds.length === 0) return result;
    const rows = this.db
      .query<{ tool_call_id: string; result: string }, string[]>(
        `SELECT tool_call_id, result FROM tool_result_checkpoints WHERE tool_call_id IN (${placeholders(toolCallIds)})`,
      )
      .all(...toolCallIds);
    for (const row of rows) result.set(row.tool_call_id, JSON.parse(row.result) as ToolResult);
    return result;
  }

  clearResults(toolCallIds?: readonly string[]): void {
    if (toolCallIds === undefined) {
      this.db.run('DELETE FROM tool_result_checkpoints');
      return;
    }
    if (toolCallIds.length > 0)
      this.db
        .query(`DELETE FROM tool_result_checkpoints WHERE tool_call_id IN (${placeholders(toolCallIds)})`)
        .run(...toolCallIds);
  }
}
