import type { TraceCaller, TurnAuth } from '../agent/agent-event.ts';
import type { JsonValue } from '../json-types.ts';

/** Default time an inter-agent request waits for the callee's turn to end (DESIGN.md §5). */
export const DEFAULT_AGENT_REQUEST_TIMEOUT_MS = 60_000;
/** Longest timeout a request may ask for. */
export const MAX_AGENT_REQUEST_TIMEOUT_MS = 600_000;

/** Where a tool call sits in its trace: a callee's turn joins `traceId` as a child of `spanId`. */
export interface ToolTraceContext {
  traceId: string;
  spanId: string;
  /** The step and call this span belongs to, not stored until the step ends (a callee's turn records them). */
  caller?: TraceCaller;
  /** The calling turn's auth context (spec v1 §12.5.3): a request or send made with this trace carries it along. */
  auth?: TurnAuth;
}

/** Spec v2.0-b §11.1 `request`: the caller's turn waits for the callee's turn to end. */
export interface AgentRequestOptions {
  /** The callee's agent name. */
  target: string;
  input: string;
  /** The callee's instance; default: the caller's own instance key. */
  instanceKey?: string;
  /** Default 60 000 ms, at most 600 000. */
  timeoutMs?: number;
  data?: JsonValue;
  /** The caller's tool call (ctx.trace), so the callee's turn joins the caller's trace. */
  trace?: ToolTraceContext;
  /** Stops waiting (the caller's tool call was cancelled); the orchestrator forgets the request. */
  signal?: AbortSignal;
  /** The caller does not block on the answer (agents__request async: true): no wait-for edge, no cycle check. */
  async?: boolean;
}

/** Spec v2.0-b §11.1 `send`: fire-and-forget, no replyTo. */
export type AgentSendOptions = Omit<AgentRequestOptions, 'timeoutMs' | 'signal' | 'async'>;

/** How the callee's turn ended, as the caller sees it. A failed turn is an E_AGENT_TURN_FAILED error instead. */
export interface AgentReply {
  agent: string;
  instanceKey: string;
  status: 'completed' | 'max_steps';
  text: string;
  turnId: string;
  traceId: string;
  steps: number;
  reason?: string;
}

/** The state of one agent instance's process, as the orchestrator sees it (`gdn ps`, agents__list). */
export interface AgentProcessInfo {
  agent: string;
  instanceKey: string;
  /**
   * starting → ready; backoff / crash-loop after crashes; stopping during shutdown; stopped when not wanted;
   * waiting for a place under the orchestrator's `maxProcesses`.
   */
  state: 'waiting' | 'starting' | 'ready' | 'stopping' | 'backoff' | 'crash-loop' | 'stopped';
  pid: number | null;
  queueDepth: number;
  turnsServed: number;
  restarts: number;
  startedAt: number | null;
  lastExit?: { code: number | null; signal: string | null; at: number };
  nextRestartAt?: number;
}

/** One agent a caller may address (agents__catalog). */
export interface AgentCatalogEntry {
  name: string;
  description?: string;
  entry: boolean;
}

/**
 * The agents runtime a tool reaches as `ctx.agents` (addition to spec §7.3, docs/decisions.md): present in agent
 * processes run by an Orchestrator, absent in the single-agent in-process path. Failures throw GoondanError with
 * agent error codes (E_AGENT_UNKNOWN, E_AGENT_CRASHED, …), which the executor turns into error ToolResults (spec §2.6.5).
 */
export interface AgentsRuntime {
  request(options: AgentRequestOptions): Promise<AgentReply>;
  send(options: AgentSendOptions): Promise<{ sent: true; eventId: string; agent: string; instanceKey: string }>;
  spawn(options: { target: string; instanceKey?: string }): Promise<AgentProcessInfo>;
  list(): Promise<AgentProcessInfo[]>;
  /** The agents this agent may call. */
  catalog(): AgentCatalogEntry[];
}
