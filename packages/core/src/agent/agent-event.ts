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
  createdAt: string;
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

/** A fresh id with a readable prefix: `evt_lz3k9a_1`. */
export function newId(prefix: string): string {
  counter += 1;
  return `${prefix}_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}_${counter}`;
}

export function userEvent(input: string, source = 'cli'): AgentEvent {
  return {
    id: newId('evt'),
    type: 'user.message',
    input,
    source: { kind: 'user', name: source },
    createdAt: new Date().toISOString(),
  };
}
