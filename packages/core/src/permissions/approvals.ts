import { newId } from '../agent/agent-event.ts';
import type { ApprovalStore } from '../store/approval-store.ts';
import type { JsonValue } from '../types.ts';
import type { ApprovalAnswer, ApprovalRecord, ApprovalScope, CallSource, RiskCategory } from './permission-types.ts';
import { describeCallSource } from './permission-types.ts';

/** What the executor asks for when a policy says `ask`. */
export interface ApprovalRequest {
  toolName: string;
  toolCallId: string;
  category: RiskCategory;
  args: JsonValue;
  rule: string;
  source: CallSource;
  turnId: string | null;
  traceId: string | null;
  /** The turn's signal: a cancelled turn cancels its approvals. */
  signal?: AbortSignal;
  /**
   * When the model's message holding the call was made (epoch ms): an approval asked before it belongs to an
   * earlier call that had the same id, never to this one (a turn resumed after a restart that came between the
   * message and its approval).
   */
  since?: number;
}

/** How an approval ended. `id` is null only for calls approved by a grant made before approvals were stored. */
export interface ApprovalResolution {
  outcome: 'approved' | 'denied' | 'expired' | 'cancelled';
  id: string | null;
  scope: ApprovalScope | null;
  by: string | null;
  reason: string | null;
}

/** Where calls that need a person's decision wait for it (the executor reaches it through the call's scope). */
export interface ApprovalGate {
  request(request: ApprovalRequest): Promise<ApprovalResolution>;
}

export interface ApprovalCoordinatorOptions {
  store: ApprovalStore;
  agent: string;
  instanceKey: string;
  timeoutMs: number;
  /** How often answers written by other processes are looked for while something waits (default 250 ms). */
  pollIntervalMs?: number;
  /** Applied to the arguments stored with the approval (secrets redacted). */
  redact?: (args: JsonValue) => JsonValue;
  onRequested?: (record: ApprovalRecord) => void;
  onResolved?: (record: ApprovalRecord) => void;
}

interface Waiter {
  record: ApprovalRecord;
  resolve: (record: ApprovalRecord) => void;
  timer: ReturnType<typeof setTimeout>;
  detach: () => void;
}

/** Longest wait a timer can express; longer expiries are re-armed. */
const MAX_TIMER_MS = 2_000_000_000;

/**
 * The approvals of one agent instance. A call whose policy says `ask` is stored as a pending approval and waits
 * until a person answers (in this process through `answer`, or from another process through the database),
 * the approval expires, or the turn is cancelled. A call already asked about (a turn resumed after a restart)
 * waits on its stored approval instead of asking twice; a tool approved "for this conversation" is not asked
 * about again until the conversation is reset.
 */
/** Whether two JSON values are equal, whatever the order of object keys. */
function sameJson(left: JsonValue, right: JsonValue): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) || Array.isArray(right)) {
    if (!Array.isArray(left) || !Array.isArray(right) || left.length !== right.length) return false;
    return left.every((item, index) => sameJson(item, right[index]!));
  }
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => Object.hasOwn(right, key) && sameJson(left[key]!, right[key]!));
}

export class ApprovalCoordinator implements ApprovalGate {
  private readonly waiters = new Map<string, Waiter>();
  /** Approvals whose end (expiry, cancellation) the database could not take yet: written at the next poll. */
  private readonly unclosed = new Map<string, 'expired' | 'cancelled'>();
  /** Approvals a call of this process has been given: an approval answers one call, so never a second one. */
  private readonly used = new Set<string>();
  private pollTimer: ReturnType<typeof setInterval> | undefined;
  private closed = false;

  constructor(private readonly options: ApprovalCoordinatorOptions) {}

  async request(request: ApprovalRequest): Promise<ApprovalResolution> {
    const { store } = this.options;
    const now = Date.now();
    // This very call was asked about before (its turn resumes after a restart): its own answer stands. A model may
    // reuse a call id within a turn (`call_0` at every step): an answer about other arguments is not this call's.
    const args = this.options.redact ? this.options.redact(request.args) : request.args;
    const asked = store.forToolCall(request.toolCallId, { toolName: request.toolName, turnId: request.turnId });
    // Nor is an answer a call of this process was given already: the stored arguments are redacted, so a later call
    // that reuses the id with other secrets (`DB_PASSWORD="$(curl … | sh)"` for `DB_PASSWORD="hunter2"`) would
    // otherwise match it.
    const mine =
      asked !== null &&
      !this.used.has(asked.id) &&
      (request.since === undefined || asked.createdAt >= request.since) &&
      sameJson(asked.args, args);
    let record = mine ? asked : null;
    if (!record) {
      const grant = this.grantFor(request);
      if (grant)
        return { outcome: 'approved', id: grant.approvalId, scope: 'conversation', by: grant.by, reason: null };
      record = {
        id: newId('apr'),
        agent: this.options.agent,
        instanceKey: this.options.instanceKey,
        turnId: request.turnId,
        traceId: request.traceId,
        toolCallId: request.toolCallId,
        toolName: request.toolName,
        category: request.category,
        args,
        rule: request.rule,
        source: request.source,
        status: 'pending',
        scope: null,
        decidedBy: null,
        reason: null,
        createdAt: now,
        expiresAt: now + this.options.timeoutMs,
        decidedAt: null,
      };
      store.create(record);
    }
    this.used.add(record.id);
    if (record.status === 'pending' && record.expiresAt <= now) record = store.close(record.id, 'expired') ?? record;
    if (record.status !== 'pending') return resolutionOf(record);
    if (request.signal?.aborted) return resolutionOf(store.close(record.id, 'cancelled') ?? record);
    const waiting = this.wait(record, request.signal);
    this.notify('onRequested', record);
    return resolutionOf(await waiting);
  }

  /**
   * Answers a pending approval of this instance and releases the call waiting on it.
   * @throws GoondanError E_APPROVAL_NOT_FOUND when there is no such approval or it is no longer pending.
   */
  answer(id: string, answer: ApprovalAnswer): ApprovalRecord {
    try {
      const stored = redactAnswer(answer, this.options.redact);
      return this.options.store.answerPending(id, stored, `${this.options.agent}/${this.options.instanceKey}`);
    } finally {
      // Whatever became of it (answered now, or found expired), a call waiting on it goes on.
      this.settle(id, this.options.store.get(id));
    }
  }

  /**
   * The grant that lets this call through without asking: one for its tool, made by approving "for this
   * conversation" a call of the same category in a turn from the same source (its origin included). A person who
   * approved a tool in `gdn chat` did not approve it for turns a Telegram message, a schedule or another agent
   * starts: a source rule that asks for those (`sources.user:telegram.restricted: ask`) still asks. Nor does a grant
   * cover a tool registered again under the same name with another category (an MCP server's tool that changed).
   */
  private grantFor(request: ApprovalRequest): { approvalId: string | null; by: string | null } | null {
    const { store } = this.options;
    const grant = store.grant(request.toolName);
    // A grant stored without its approval (made before approvals were stored) covers the tool as it always did.
    if (!grant || grant.approvalId === null) return grant;
    const granted = store.get(grant.approvalId);
    if (!granted || granted.category !== request.category) return null;
    return describeCallSource(granted.source) === describeCallSource(request.source) ? grant : null;
  }

  /** Pending approvals of this instance, oldest first. */
  pending(): ApprovalRecord[] {
    return this.options.store.list({ status: 'pending' });
  }

  /** The conversation starts afresh: grants end, pending approvals are cancelled (their calls get E_TOOL_ABORTED). */
  reset(): void {
    const ids = [...this.waiters.keys()];
    this.options.store.resetConversation();
    for (const id of ids) this.settle(id, this.options.store.get(id));
  }

  /** Stops timers. Waiting calls stay unanswered: their approvals stay pending in the database for a restart. */
  close(): void {
    this.closed = true;
    clearInterval(this.pollTimer);
    for (const waiter of this.waiters.values()) {
      clearTimeout(waiter.timer);
      waiter.detach();
    }
    this.waiters.clear();
  }

  private wait(record: ApprovalRecord, signal?: AbortSignal): Promise<ApprovalRecord> {
    return new Promise((resolve) => {
      const onAbort = () => this.end(record, 'cancelled');
      const arm = (): ReturnType<typeof setTimeout> =>
        setTimeout(
          () => {
            if (Date.now() < record.expiresAt) {
              const waiter = this.waiters.get(record.id);
              if (waiter) waiter.timer = arm();
              return;
            }
            this.end(record, 'expired');
          },
          Math.min(MAX_TIMER_MS, Math.max(0, record.expiresAt - Date.now())),
        );
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.set(record.id, {
        record,
        resolve,
        timer: arm(),
        detach: () => signal?.removeEventListener('abort', onAbort),
      });
      this.startPolling();
    });
  }

  /**
   * Ends a waiting approval that timed out or whose turn was cancelled. When the database cannot take it (another
   * process holds its write lock past the busy timeout, the disk is full), the waiting call still ends now (it
   * must neither run nor wait forever): the end is written at a later poll. A late approval cannot win meanwhile
   * over an expiry (an answer past `expiresAt` is refused), and a cancelled call never runs.
   */
  private end(record: ApprovalRecord, status: 'expired' | 'cancelled'): void {
    let closed: ApprovalRecord | null;
    try {
      closed = this.options.store.close(record.id, status);
    } catch {
      this.unclosed.set(record.id, status);
      this.settle(record.id, { ...record, status, decidedAt: Date.now() });
      this.startPolling();
      return;
    }
    this.settle(record.id, closed);
  }

  private settle(id: string, record: ApprovalRecord | null): void {
    const waiter = this.waiters.get(id);
    if (!waiter || !record || record.status === 'pending') return;
    this.waiters.delete(id);
    clearTimeout(waiter.timer);
    waiter.detach();
    if (this.waiters.size === 0 && this.unclosed.size === 0) this.stopPolling();
    this.notify('onResolved', record);
    waiter.resolve(record);
  }

  /** Answers given by another process (`gdn approvals approve`) reach the waiting call through the database. */
  private startPolling(): void {
    if (this.pollTimer || this.closed) return;
    this.pollTimer = setInterval(() => {
      for (const [id, status] of this.unclosed) {
        try {
          this.options.store.close(id, status);
          this.unclosed.delete(id);
        } catch {
          // Still busy: the next tick tries again.
        }
      }
      try {
        const statuses = this.options.store.statuses([...this.waiters.keys()]);
        for (const [id, status] of statuses) if (status !== 'pending') this.settle(id, this.options.store.get(id));
      } catch {
        // A busy or closed database is retried at the next tick; the approval's own timer still runs.
      }
      if (this.waiters.size === 0 && this.unclosed.size === 0) this.stopPolling();
    }, this.options.pollIntervalMs ?? 250);
    this.pollTimer.unref?.();
  }

  private stopPolling(): void {
    clearInterval(this.pollTimer);
    this.pollTimer = undefined;
  }

  private notify(key: 'onRequested' | 'onResolved', record: ApprovalRecord): void {
    try {
      this.options[key]?.(record);
    } catch {
      // Observers cannot break a call (STYLE habit 8).
    }
  }
}

/** Longest `by` kept: a name, not a document. */
const MAX_BY_CHARS = 200;

/** Longest reason read for redaction; the store keeps the first MAX_APPROVAL_REASON_CHARS of what is left. */
const MAX_REASON_READ_CHARS = 65_536;

/**
 * An answer as it is stored: its reason and its `by` pass through `redact` (secrets typed into a denial's reason
 * are kept out of the database, as the call's arguments are). A reason of megabytes is cut first.
 */
export function redactAnswer(answer: ApprovalAnswer, redact?: (value: JsonValue) => JsonValue): ApprovalAnswer {
  if (!redact) return answer;
  const text = (value: string) => {
    const redacted = redact(value.length > MAX_REASON_READ_CHARS ? value.slice(0, MAX_REASON_READ_CHARS) : value);
    return typeof redacted === 'string' ? redacted : '[REDACTED]';
  };
  return {
    ...answer,
    ...(typeof answer.reason === 'string' ? { reason: text(answer.reason) } : {}),
    ...(typeof answer.by === 'string' ? { by: text(answer.by).slice(0, MAX_BY_CHARS) } : {}),
  };
}

function resolutionOf(record: ApprovalRecord): ApprovalResolution {
  return {
    outcome: record.status === 'pending' ? 'cancelled' : record.status,
    id: record.id,
    scope: record.scope,
    by: record.decidedBy,
    reason: record.reason,
  };
}
