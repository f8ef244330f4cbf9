import type { JsonValue } from '../json-types.ts';

/**
 * One unit of input to an agent instance (spec v2.0-b §2.6, §11). A Turn handles exactly one event.
 * `replyTo` set = a request that expects an answer; absent = fire-and-forget.
 */
export interface AgentEvent {
  id: string;
  /** `user.message` from a person, `agent.message` from another agent, `tool.job.completed` from a pending job. */
  type: 'user.message' | 'agent.message' | 'tool.job.completed' | (string & {});
  /** The text the model reads for this event. */
  input: string;
  source: { kind: 'user' | 'agent' | 'system' | 'extension'; name: string };
  replyTo?: { target: string; correlationId: string };
  /** Carries the caller's trace so the callee's turn joins it. */
  traceContext?: { traceId: string; parentSpanId?: string; caller?: TraceCaller };
  data?: JsonValue;
  /** Who the turn acts for, carried from the turn of the agent that asked (spec v1 §12.5.3). */
  auth?: TurnAuth;
  createdAt: string;
}

/** What a user id (`auth.userId`, `gdn run --user`, serve's `userId`) must be, in words for an error. */
export const USER_ID_RULE = 'a user id of 1 to 256 characters, not only spaces, without control characters';

/** Whether `value` may name the person a turn acts for (USER_ID_RULE). */
export function isUserId(value: unknown): value is string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > 256) return false;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
  return !/[\u0000-\u001f\u007f]/.test(value);
}

/**
 * A turn's auth context (spec v1 §12.5.3), kept along a chain of inter-agent requests and sends: the callee's turn
 * applies the permission rules of the chain's first source besides its own (`origin`), and acts for the same person
 * (`userId`: grants of `subjectMode: user` OAuthApps are theirs; stored as the turn's messages' `metadata.userId`).
 */
export interface TurnAuth {
  /** The source of the turn that started the chain (`user:telegram`). */
  origin?: { kind: string; name: string };
  /** The person the turn acts for, as the entry point knows them (a chat's user id, an HTTP client's user). */
  userId?: string;
}

/**
 * The calling step and tool call of an inter-agent request. Their spans are stored only when the caller's step ends,
 * so the callee's turn keeps them (span attribute `caller`): a live view nests the turn under the call at once.
 */
export type TraceCaller = {
  turnSpanId: string;
  stepSpanId: string;
  stepIndex: number;
  stepStartedAt: number;
  toolName: string;
  toolCallId: string;
  toolStartedAt: number;
};

let counter = 0;
let lastMs = -1;
let lastMsText = '';
/** 36⁴: four base-36 digits of randomness. */
const RANDOM_SPAN = 1_679_616;

/**
 * A fresh id with a readable prefix: `evt_lz3k9a_1`. Several go into every message (docs/performance.md): the
 * time's digits are reused within a millisecond, and the random part is an integer's (a float's base-36 digits cost
 * several times more).
 */
export function newId(prefix: string): string {
  counter += 1;
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastMsText = now.toString(36);
  }
  const random = Math.floor(Math.random() * RANDOM_SPAN)
    .toString(36)
    .padStart(4, '0');
  return `${prefix}_${lastMsText}${random}_${counter}`;
}

let lastIsoMs = -1;
let lastIso = '';

/**
 * The time now as an ISO 8601 string (an event's `createdAt`), made once per millisecond: several events are
 * stamped in a millisecond under load, and formatting a Date costs more than the rest of building one.
 */
export function isoNow(): string {
  const now = Date.now();
  if (now !== lastIsoMs) {
    lastIsoMs = now;
    lastIso = new Date(now).toISOString();
  }
  return lastIso;
}

export function userEvent(input: string, source = 'cli'): AgentEvent {
  return {
    id: newId('evt'),
    type: 'user.message',
    input,
    source: { kind: 'user', name: source },
    createdAt: isoNow(),
  };
}
