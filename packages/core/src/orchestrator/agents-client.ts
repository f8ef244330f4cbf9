import { type AgentEvent, isoNow, newId } from '../agent/agent-event.ts';
import { invalidInstanceKey, isInstanceKey } from '../agent/instance-paths.ts';
import type { TurnResult } from '../agent/turn-types.ts';
import type { Bundle } from '../config/resources.ts';
import { type ErrorCode, errorCodes } from '../errors/error-codes.ts';
import { GoondanError } from '../errors/goondan-error.ts';
import type { JsonValue } from '../types.ts';
import {
  type AgentCatalogEntry,
  type AgentProcessInfo,
  type AgentReply,
  type AgentRequestOptions,
  type AgentSendOptions,
  type AgentsRuntime,
  DEFAULT_AGENT_REQUEST_TIMEOUT_MS,
  MAX_AGENT_REQUEST_TIMEOUT_MS,
} from './agents-runtime.ts';
import {
  controlEvent,
  eventTypes,
  formatAddress,
  ORCHESTRATOR,
  type ReplyData,
  type RequestReplyTo,
  type SendAckData,
  type WireError,
} from './ipc-message.ts';
import { PausableTimer } from './pausable-timer.ts';
import { agentCatalog, checkTarget, type SwarmTopology } from './swarm-topology.ts';
import type { Transport } from './transport.ts';

/** How much longer than the orchestrator's own timer the caller waits, in case the orchestrator is gone. */
const BACKUP_MARGIN_MS = 2_000;
const QUERY_TIMEOUT_MS = 30_000;
/** Checked targets kept per client (resolveTarget). */
const MAX_KNOWN_TARGETS = 256;

interface ResolvedTarget {
  readonly agent: string;
  readonly instanceKey: string;
  readonly address: string;
}

/** An error that crossed the wire: a GoondanError again when the code is ours. */
export function wireError(error: WireError): GoondanError {
  if (error.code in errorCodes) {
    return new GoondanError(
      error.code as ErrorCode,
      error.message,
      error.suggestion ? { suggestion: error.suggestion } : {},
    );
  }
  return new GoondanError('E_TOOL', `${error.code}: ${error.message}`);
}

/**
 * `data` that JSON can carry over the wire. One it cannot (nested some 10,000 levels deep, circular, a BigInt) was
 * dropped by the pipe unnoticed, and the call waited for its timeout: it fails at once instead.
 */
function sendable(data: JsonValue): JsonValue {
  try {
    JSON.stringify(data);
  } catch (thrown) {
    const reason = thrown instanceof Error ? thrown.message : String(thrown);
    throw new GoondanError('E_OPTIONS_INVALID', `data cannot be sent to another agent: ${reason}`);
  }
  return data;
}

interface Waiter {
  resolve(data: ReplyData): void;
  timer: PausableTimer;
}

/** A send waiting to hear that the orchestrator stored it. */
interface SendWaiter {
  settle(error?: GoondanError): void;
}

/**
 * The agents runtime inside an agent process (`ctx.agents`): turns tool calls into `event` messages to the
 * orchestrator (spec v2.0-b §11.1) and matches replies by correlationId. Targets are checked here first, so a
 * mistake costs no round trip; the orchestrator checks again.
 */
export class AgentsClient implements AgentsRuntime {
  private readonly waiters = new Map<string, Waiter>();
  /** Sends not acknowledged yet, by event id (one backup timer for all: sends are acknowledged in batches). */
  private readonly sends = new Map<string, SendWaiter & { deadline: number }>();
  private sendTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly address: string;
  private readonly targets = new Map<string, ResolvedTarget>();

  constructor(
    private readonly options: {
      transport: Transport;
      agent: string;
      instanceKey: string;
      bundle: Bundle;
      topology: SwarmTopology;
    },
  ) {
    this.address = formatAddress(options.agent, options.instanceKey);
    options.transport.onClose(() => {
      for (const [correlationId, waiter] of this.waiters) {
        waiter.resolve({
          correlationId,
          error: { code: 'E_AGENT_SHUTTING_DOWN', message: 'The orchestrator went away before answering.' },
        });
      }
      const gone = new GoondanError('E_AGENT_SHUTTING_DOWN', 'The orchestrator went away before accepting the send.');
      for (const waiter of [...this.sends.values()]) waiter.settle(gone);
    });
  }

  /** The orchestrator accepted (stored) or refused these sends: their `send` calls answer now. */
  receiveSendAck(data: SendAckData): void {
    const error = data.error ? wireError(data.error) : undefined;
    for (const eventId of data.eventIds ?? []) this.sends.get(eventId)?.settle(error);
  }

  /** Hands a reply to whoever waits for it; false when no one does (it came after a timeout). */
  /** Pauses or resumes the timeout of a waiting request (its callee chain waits for an approval). */
  holdRequest(correlationId: string, held: boolean): void {
    const timer = this.waiters.get(correlationId)?.timer;
    if (held) timer?.pause();
    else timer?.resume();
  }

  receiveReply(data: ReplyData): boolean {
    const waiter = this.waiters.get(data.correlationId);
    if (!waiter) return false;
    waiter.resolve(data);
    return true;
  }

  /** Checks the target at once (throws synchronously), then waits for the reply. */
  request(options: AgentRequestOptions): Promise<AgentReply> {
    const target = this.resolveTarget(options.target, options.instanceKey);
    const timeoutMs = Math.min(
      Math.max(1, Math.floor(options.timeoutMs ?? DEFAULT_AGENT_REQUEST_TIMEOUT_MS)),
      MAX_AGENT_REQUEST_TIMEOUT_MS,
    );
    const correlationId = newId('corr');
    const replyTo: RequestReplyTo = { target: this.options.agent, correlationId, timeoutMs };
    if (options.async) replyTo.async = true;
    const event = this.agentEvent(options, replyTo);
    return this.exchange({
      to: target.address,
      event,
      correlationId,
      waitMs: timeoutMs + BACKUP_MARGIN_MS,
      signal: options.signal,
      timeoutMessage: `Agent ${target.address} did not answer within ${timeoutMs} ms.`,
    }).then((data) => {
      if (data.error) throw wireError(data.error);
      return toAgentReply(target, data.result as unknown as TurnResult);
    });
  }

  /**
   * Answers once the orchestrator has accepted the send: stored in the target's inbox and committed (where there is
   * no inbox, routed), so a send reported `sent` survives a kill of any process (docs/orchestrator.md).
   */
  async send(options: AgentSendOptions) {
    const target = this.resolveTarget(options.target, options.instanceKey);
    const event = this.agentEvent(options, undefined);
    const accepted = new Promise<void>((resolve, reject) => {
      const settle = (error?: GoondanError) => {
        this.sends.delete(event.id);
        if (error) reject(error);
        else resolve();
      };
      this.sends.set(event.id, { settle, deadline: Date.now() + QUERY_TIMEOUT_MS });
    });
    this.armSendTimer();
    this.options.transport.send({ type: 'event', from: this.address, to: target.address, payload: event });
    await accepted;
    return { sent: true as const, eventId: event.id, agent: target.agent, instanceKey: target.instanceKey };
  }

  /** Sends the orchestrator has not acknowledged within QUERY_TIMEOUT_MS fail (it is gone or stuck). */
  private armSendTimer(): void {
    if (this.sendTimer !== undefined) return;
    const check = () => {
      this.sendTimer = undefined;
      const now = Date.now();
      for (const [eventId, waiter] of this.sends) {
        if (waiter.deadline > now) break; // in the order they were sent: the rest are younger
        const message = `The orchestrator did not accept the send ${eventId} within ${QUERY_TIMEOUT_MS} ms.`;
        waiter.settle(new GoondanError('E_AGENT_REQUEST_TIMEOUT', message));
      }
      const oldest = this.sends.values().next().value;
      if (oldest) {
        this.sendTimer = setTimeout(check, Math.max(1, oldest.deadline - now));
        this.sendTimer.unref?.();
      }
    };
    this.sendTimer = setTimeout(check, QUERY_TIMEOUT_MS);
    this.sendTimer.unref?.();
  }

  /** No request of this process waits for its reply, and no send for its acknowledgement. */
  idle(): boolean {
    return this.waiters.size === 0 && this.sends.size === 0;
  }

  async spawn(options: { target: string; instanceKey?: string }): Promise<AgentProcessInfo> {
    const target = this.resolveTarget(options.target, options.instanceKey);
    return (await this.query(eventTypes.spawn, {
      agent: target.agent,
      instanceKey: target.instanceKey,
    })) as unknown as AgentProcessInfo;
  }

  async list(): Promise<AgentProcessInfo[]> {
    return (await this.query(eventTypes.list, null)) as unknown as AgentProcessInfo[];
  }

  catalog(): AgentCatalogEntry[] {
    return agentCatalog(this.options.bundle, this.options.topology, this.options.agent);
  }

  /**
   * Checks a target and makes its address. The bundle and topology do not change in a client's life, so a target
   * that passed is kept (a caller's requests one after another check it once); what fails throws every time.
   */
  private resolveTarget(agent: string, instanceKey: string | undefined): ResolvedTarget {
    const key = instanceKey ?? this.options.instanceKey;
    const cacheKey = `${agent}\u0000${key}`;
    const known = this.targets.get(cacheKey);
    if (known) return known;
    checkTarget({
      bundle: this.options.bundle,
      topology: this.options.topology,
      from: this.options.agent,
      target: agent,
    });
    if (!isInstanceKey(key)) throw invalidInstanceKey(key);
    const target: ResolvedTarget = Object.freeze({ agent, instanceKey: key, address: formatAddress(agent, key) });
    // Instance keys come from the model: the cache stays small whatever it asks for.
    if (this.targets.size >= MAX_KNOWN_TARGETS) this.targets.clear();
    this.targets.set(cacheKey, target);
    return target;
  }

  /** Built field by field, not with conditional spreads: one goes into every request and send. */
  private agentEvent(options: AgentSendOptions, replyTo: RequestReplyTo | undefined): AgentEvent {
    const event: AgentEvent = {
      id: newId('evt'),
      type: eventTypes.agentMessage,
      input: options.input,
      source: { kind: 'agent', name: this.options.agent },
      createdAt: isoNow(),
    };
    if (replyTo) event.replyTo = replyTo;
    const trace = options.trace;
    if (trace) {
      event.traceContext = { traceId: trace.traceId, parentSpanId: trace.spanId };
      if (trace.caller) event.traceContext.caller = trace.caller;
      if (trace.auth) event.auth = trace.auth;
    }
    if (options.data !== undefined) event.data = sendable(options.data);
    return event;
  }

  /** Asks the orchestrator (a query it answers itself, e.g. `oauth.token`) and resolves with its result. */
  async query(type: string, data: JsonValue): Promise<JsonValue | undefined> {
    const correlationId = newId('corr');
    const event = controlEvent({
      type,
      source: this.options.agent,
      data,
      replyTo: { target: this.options.agent, correlationId },
    });
    const reply = await this.exchange({
      to: ORCHESTRATOR,
      event,
      correlationId,
      waitMs: QUERY_TIMEOUT_MS,
      timeoutMessage: `The orchestrator did not answer ${type} within ${QUERY_TIMEOUT_MS} ms.`,
    });
    if (reply.error) throw wireError(reply.error);
    return reply.result;
  }

  private exchange(options: {
    to: string;
    event: AgentEvent;
    correlationId: string;
    waitMs: number;
    signal?: AbortSignal;
    timeoutMessage: string;
  }): Promise<ReplyData> {
    const { to, event, correlationId, signal } = options;
    const transport = this.options.transport;
    if (signal?.aborted)
      return Promise.reject(new GoondanError('E_TOOL_ABORTED', 'The request was cancelled before it was sent.'));
    return new Promise((resolve, reject) => {
      const cleanup = () => {
        timer.clear();
        signal?.removeEventListener('abort', onAbort);
        this.waiters.delete(correlationId);
      };
      const forget = () =>
        transport.send({
          type: 'event',
          from: this.address,
          to: ORCHESTRATOR,
          payload: controlEvent({
            type: eventTypes.requestCancel,
            source: this.options.agent,
            data: { correlationId },
          }),
        });
      const onAbort = () => {
        cleanup();
        forget();
        reject(new GoondanError('E_TOOL_ABORTED', `The request to ${to} was cancelled.`));
      };
      const timer = new PausableTimer(() => {
        cleanup();
        forget();
        reject(new GoondanError('E_AGENT_REQUEST_TIMEOUT', options.timeoutMessage));
      }, options.waitMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.set(correlationId, {
        timer,
        resolve: (data) => {
          cleanup();
          resolve(data);
        },
      });
      transport.send({ type: 'event', from: this.address, to, payload: event });
    });
  }
}

/** The callee's TurnResult as the caller's tool sees it; a failed or cancelled turn is an error. */
function toAgentReply(target: { agent: string; instanceKey: string; address: string }, result: TurnResult): AgentReply {
  if (result.status === 'error' || result.status === 'cancelled') {
    const cause = result.error ? `${result.error.code}: ${result.error.message}` : (result.reason ?? result.status);
    throw new GoondanError(
      'E_AGENT_TURN_FAILED',
      `The turn of ${target.address} ${result.status === 'cancelled' ? 'was cancelled' : 'failed'}: ${cause}`,
    );
  }
  return {
    agent: target.agent,
    instanceKey: target.instanceKey,
    status: result.status,
    text: result.text,
    turnId: result.turnId,
    traceId: result.traceId,
    steps: result.steps,
    ...(result.reason ? { reason: result.reason } : {}),
  };
}
