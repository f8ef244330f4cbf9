import { type AgentEvent, isoNow, newId } from '../agent/agent-event.ts';
import type { JsonValue } from '../types.ts';

/** The orchestrator's name in `from` / `to`. */
export const ORCHESTRATOR = 'orchestrator';

/**
 * Spec v2.0-b §11.2: the only three IPC message types. `from` / `to` are agent addresses: `agent` or
 * `agent/instanceKey` (one process per agent *instance*, so the spec's agent name is qualified by the instance
 * key when it is not the sender's own), or `orchestrator`.
 */
export type IpcMessage = IpcEventMessage | IpcShutdownMessage | IpcShutdownAckMessage;

export interface IpcEventMessage {
  type: 'event';
  from: string;
  to: string;
  payload: AgentEvent;
}

export interface IpcShutdownMessage {
  type: 'shutdown';
  from: string;
  to: string;
  /**
   * `restart`: the process is replaced by a new one (a reload for changed resources): events it has not started
   * are handed back (`process.requeue`) for the new process instead of being refused.
   */
  payload: { gracePeriodMs: number; reason: string; restart?: boolean };
}

export interface IpcShutdownAckMessage {
  type: 'shutdown_ack';
  from: string;
  to: string;
  payload: { turnsServed: number };
}

/**
 * The `type`s of AgentEvents that travel in `event` messages besides turn inputs (`user.message`,
 * `agent.message`). Everything is an event (spec decision 1): replies, the ready handshake, orchestrator queries
 * and the runtime notifications the CLI prints from.
 */
export const eventTypes = {
  agentMessage: 'agent.message',
  /** The callee's turn ended (or the orchestrator failed the request): `data` is a ReplyData. */
  reply: 'agent.reply',
  /** The caller gave up waiting (its tool call was cancelled): `data.correlationId`. */
  requestCancel: 'agent.request.cancel',
  /** A turn input that starts the conversation afresh instead of running a turn (chat's /reset). */
  reset: 'conversation.reset',
  /** Orchestrator → process: cancel the turn of `data.eventId` (Ctrl-C in chat). */
  turnCancel: 'turn.cancel',
  /** Orchestrator → a spare process (started ahead, without arguments), first: which instance it serves
   * (`data`: AgentProcessConfig). */
  config: 'process.config',
  /** Orchestrator → process, first of all: the validated bundle (`data`: bundleToJson). */
  bundle: 'process.bundle',
  /** Orchestrator → process, before the bundle: the full environment (`data`), kept out of the process's
   * environment block so tools cannot read it in /proc (docs/security.md#secrets-in-the-environment). */
  environment: 'process.environment',
  /** Process → orchestrator, once its instance is open: the ready handshake. */
  ready: 'process.ready',
  /** Process → orchestrator, when opening the instance failed; the process exits after it. */
  failed: 'process.failed',
  /**
   * Process → orchestrator, on a `restart` shutdown: the events it had queued and not started (`data.events`, in
   * order); the orchestrator delivers them to the new process first.
   */
  requeue: 'process.requeue',
  /**
   * Process → orchestrator: it has been idle for its `idleExitMs` (no turn, queue, job, approval or request of its
   * own outstanding); the orchestrator stops it if nothing is on its way to it either (docs/orchestrator.md).
   */
  idle: 'process.idle',
  /**
   * Orchestrator → process: instances wait for a place under `maxProcesses`; stop if idle. The process answers
   * `process.idle` (`data.yield`: true) when idle now, else `process.busy`, and offers `process.idle` once it is.
   */
  yield: 'process.yield',
  /** Process → orchestrator: asked to make room (`process.yield`), it is not idle now. */
  busy: 'process.busy',
  /** Process → orchestrator queries (with replyTo): start an instance, list instances. */
  spawn: 'orchestrator.spawn',
  list: 'orchestrator.list',
  /** Process → orchestrator query (with replyTo): an OAuth access token from the host (`data`: OAuthWireRequest). */
  oauthToken: 'oauth.token',
  /** Process → orchestrator query: the OAuth authorizations its instance waits for (guidance blocks). */
  oauthPending: 'oauth.pending',
  /** Runtime notifications (process → orchestrator) for observers such as the CLI. */
  turnStart: 'runtime.turn.start',
  textDelta: 'runtime.text.delta',
  toolStart: 'runtime.tool.start',
  toolEnd: 'runtime.tool.end',
  /** A failed model call about to be tried again (`data`: the onModelRetry event), so a server that is down is not silence. */
  modelRetry: 'runtime.model.retry',
  /** Sent for every turn that was not a request (a request's reply says the same). */
  turnEnd: 'runtime.turn.end',
  /** Process → orchestrator, always (not only when observed): a call waits for a person (`data`: ApprovalRecord). */
  approvalRequested: 'runtime.approval.requested',
  /** Process → orchestrator: an approval was answered, expired or cancelled (`data`: ApprovalRecord). */
  approvalResolved: 'runtime.approval.resolved',
  /**
   * Orchestrator → caller process: pause (`held: true`) or resume the timeout of request `correlationId`, whose
   * callee chain waits for a person's approval.
   */
  requestHold: 'agent.request.hold',
  /** Orchestrator → process: a person's answer (`data`: { id, answer: ApprovalAnswer }). */
  approvalAnswer: 'approval.answer',
  /**
   * Orchestrator → the sending process: its sends were accepted (stored in their target's inbox, committed) or
   * refused (`data`: SendAckData); `agents__send` answers only then.
   */
  sendAck: 'agent.send.ack',
} as const;

/** What `agent.send.ack` carries: the ids of the sends accepted, or of those refused with the error. */
export interface SendAckData {
  eventIds: string[];
  error?: WireError;
}

/** A request's replyTo with the caller's terms (addition: how long it waits, and whether it blocks its turn). */
export interface RequestReplyTo {
  target: string;
  correlationId: string;
  timeoutMs?: number;
  async?: boolean;
}

/** `data` of an `agent.reply` event: either the callee's result or an error with a stable code. */
export interface ReplyData {
  correlationId: string;
  /** The request event this answers (lets the orchestrator count the callee's turn even after a timeout). */
  eventId?: string;
  result?: JsonValue;
  error?: WireError;
}

/** A coded error in a message (toWireError). */
export interface WireError {
  code: string;
  message: string;
  suggestion?: string;
}

/** `agent` + `instanceKey` → `agent/instanceKey`. */
export function formatAddress(agent: string, instanceKey: string): string {
  return `${agent}/${instanceKey}`;
}

/** `agent` or `agent/instanceKey`; the instance key is undefined when not given. */
export function parseAddress(address: string): { agent: string; instanceKey?: string } {
  const slash = address.indexOf('/');
  if (slash < 0) return { agent: address };
  return { agent: address.slice(0, slash), instanceKey: address.slice(slash + 1) };
}

/** An AgentEvent for control and notification traffic. */
export function controlEvent(options: {
  type: string;
  source: string;
  data?: JsonValue;
  input?: string;
  replyTo?: RequestReplyTo;
}): AgentEvent {
  // Field by field, not with conditional spreads: every reply and notification is one.
  const event: AgentEvent = {
    id: newId('evt'),
    type: options.type,
    input: options.input ?? '',
    source: { kind: 'system', name: options.source },
    createdAt: isoNow(),
  };
  if (options.replyTo) event.replyTo = options.replyTo;
  if (options.data !== undefined) event.data = options.data;
  return event;
}

/** A reply event answering `correlationId`. */
export function replyEvent(options: { source: string; data: ReplyData; input?: string }): AgentEvent {
  return controlEvent({
    type: eventTypes.reply,
    source: options.source,
    input: options.input ?? '',
    data: options.data as unknown as JsonValue,
  });
}

/** A coded error as it crosses the wire: its code, message and suggestion, nothing else (no stack, no cause). */
export function toWireError(error: { code: string; message: string; suggestion?: string | undefined }): WireError {
  const { code, message, suggestion } = error;
  return suggestion ? { code, message, suggestion } : { code, message };
}

/** A reply event that fails `correlationId` with a coded error. */
export function errorReplyEvent(options: { correlationId: string; eventId: string; error: WireError }): AgentEvent {
  return replyEvent({
    source: ORCHESTRATOR,
    data: { correlationId: options.correlationId, eventId: options.eventId, error: toWireError(options.error) },
  });
}

/** True for a well-formed message of one of the three types (anything else on the wire is dropped). */
export function isIpcMessage(value: unknown): value is IpcMessage {
  if (typeof value !== 'object' || value === null) return false;
  const message = value as Partial<IpcMessage>;
  if (typeof message.from !== 'string' || typeof message.to !== 'string') return false;
  if (typeof message.payload !== 'object' || message.payload === null) return false;
  if (message.type === 'event') return typeof (message.payload as AgentEvent).type === 'string';
  return message.type === 'shutdown' || message.type === 'shutdown_ack';
}
