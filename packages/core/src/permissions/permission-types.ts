import type { JsonValue } from '../types.ts';

/** How much harm a tool can do (builtin-tools-assistant.md): each Tool export carries one. */
export const riskCategories = ['safe', 'sensitive', 'restricted'] as const;
export type RiskCategory = (typeof riskCategories)[number];

/** The category of an export that declares none (docs/permissions.md). MCP tools default to it too. */
export const DEFAULT_RISK_CATEGORY: RiskCategory = 'sensitive';

/** What a policy says about one call: run it, ask a person first, or refuse it. */
export const permissionDecisions = ['allow', 'ask', 'deny'] as const;
export type PermissionDecision = (typeof permissionDecisions)[number];

/** True when a tool rule is a glob (`*`, `?`, `{a,b}`, `[ab]`), matched with Bun.Glob, rather than one tool's name. */
export function isToolNameGlob(pattern: string): boolean {
  return /[*?{[]/.test(pattern);
}

/** Whether a tool pattern's braces pair: Bun.Glob takes unpaired ones literally, so the rule would match no tool. */
export function bracesPair(pattern: string): boolean {
  let depth = 0;
  for (const char of pattern) {
    depth += char === '{' ? 1 : char === '}' ? -1 : 0;
    if (depth < 0) return false;
  }
  return depth === 0;
}

/** One level of rules: a decision per category and per tool name (exact, or a glob with `*`). */
export interface PermissionRules {
  safe?: PermissionDecision;
  sensitive?: PermissionDecision;
  restricted?: PermissionDecision;
  tools?: Record<string, PermissionDecision>;
}

/** Agent `spec.permissions`. Source rules can only tighten the agent's rules, never loosen them. */
export interface AgentPermissionsSpec extends PermissionRules {
  /** Keys `kind` or `kind:name` of the turn's source (e.g. `agent`, `user:telegram`). */
  sources?: Record<string, PermissionRules>;
  /** How long an `ask` waits for a person before the call fails with E_APPROVAL_TIMEOUT (default 600). */
  approvalTimeoutSeconds?: number;
  /** Tool names (or globs) a call may reach in the registry when they are not in the step's catalog (spec §9 MAY). */
  registryDirectCalls?: string[];
}

/**
 * The kinds of source the runtime gives turns (docs/permissions.md#sources): `user` (chat, cli, a channel), `agent`,
 * `system` (jobs, scheduler), `mcp` (gdn mcp serve's client), `extension`. A program may pass others.
 */
export const knownSourceKinds = ['user', 'agent', 'system', 'mcp', 'extension'] as const;

/** Where a turn (and so each of its tool calls) came from. */
export interface CallSource {
  kind: string;
  name: string;
  /**
   * The source of the turn that started the chain, when another agent's request started this turn (spec v1
   * §12.5.3): `user:telegram` for a turn of `agent:coordinator` that a Telegram message set off. Its rules apply
   * too (they only tighten), so a chain cannot shed a restriction by asking another agent.
   */
  origin?: { kind: string; name: string };
}

/** `kind:name`, with the origin when there is one: `agent:coordinator (from user:telegram)`. */
export function describeCallSource(source: CallSource): string {
  const own = `${source.kind}:${source.name}`;
  return source.origin ? `${own} (from ${source.origin.kind}:${source.origin.name})` : own;
}

export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'cancelled';
export type ApprovalScope = 'once' | 'conversation';

/** A stored request for a person's decision about one tool call. */
export interface ApprovalRecord {
  id: string;
  agent: string;
  instanceKey: string;
  turnId: string | null;
  traceId: string | null;
  toolCallId: string;
  toolName: string;
  category: RiskCategory;
  /** The call's arguments with secrets redacted (what the person is shown). */
  args: JsonValue;
  /** Why it needs approval, e.g. `category restricted: ask`. */
  rule: string;
  source: CallSource;
  status: ApprovalStatus;
  scope: ApprovalScope | null;
  decidedBy: string | null;
  reason: string | null;
  createdAt: number;
  expiresAt: number;
  decidedAt: number | null;
}

/** A person's answer to an approval. */
export interface ApprovalAnswer {
  action: 'approve' | 'deny';
  /** For approve: this call only (default), or every call of this tool for the rest of the conversation. */
  scope?: ApprovalScope;
  /** For deny: told to the model with E_APPROVAL_DENIED. */
  reason?: string;
  /** Who decided (default `user`). */
  by?: string;
}

/** One line of the audit log: every call that reached the executor, whatever became of it. */
export interface AuditEntry {
  at: number;
  agent: string;
  instanceKey: string;
  turnId: string | null;
  toolCallId: string;
  traceId: string | null;
  toolName: string;
  category: RiskCategory | null;
  /** `kind:name` of the turn's source, or null when the call had none. */
  source: string | null;
  /** The policy's decision; `refused` when the catalog guard, lookup or argument validation stopped the call. */
  decision: PermissionDecision | 'refused';
  /** The rule that decided, e.g. `tools.bash__exec: ask` or `default restricted: ask`. */
  rule: string | null;
  /** The call reached the registry outside the catalog (spec §9 registry direct call). */
  direct: boolean;
  approval: {
    /** Null when no approval was stored: `gdn tools call --yes`, or a grant made before approvals were stored. */
    id: string | null;
    outcome: Exclude<ApprovalStatus, 'pending'>;
    scope: ApprovalScope | null;
    by: string | null;
    reason: string | null;
  } | null;
  durationMs: number;
  status: 'ok' | 'error' | 'pending';
  errorCode: string | null;
  /** Raw values: the audit store redacts secrets and caps their size before writing. */
  args: JsonValue;
  output: JsonValue | null;
}
