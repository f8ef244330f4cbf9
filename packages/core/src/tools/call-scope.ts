import type { AgentsRuntime, ToolTraceContext } from '../orchestrator/agents-runtime.ts';
import type { ApprovalGate } from '../permissions/approvals.ts';
import type { AuditEntry, CallSource } from '../permissions/permission-types.ts';
import type { JsonObject, JsonValue, Message, ToolCall, ToolResult } from '../types.ts';
import type { RegisteredTool } from './tool-registry.ts';

/** Everything about the calling agent that a ToolContext needs (spec §7.3), and who answers for the call. */
export interface CallScope {
  agentName: string;
  instanceKey: string;
  turnId: string;
  message: Message;
  workdir: string;
  logger: Console;
  signal?: AbortSignal;
  trace?: ToolTraceContext;
  agents?: AgentsRuntime;
  /** Where the turn came from; source rules of the permissions apply to it. */
  source?: CallSource;
  /** Where `ask` calls wait for a person. Without one, `ask` calls are refused with E_APPROVAL_DENIED. */
  approvals?: ApprovalGate;
  /** Told about every call once it has a result (the audit log). */
  audit?: (entry: AuditEntry) => void;
}

/** One call on its way through the middleware chain to its handler. */
export interface CallState {
  tool: RegisteredTool;
  call: ToolCall;
  scope: CallScope;
  args: JsonObject;
  /** Made when a middleware first reads it. */
  metadata?: Record<string, JsonValue>;
  /** Told when the handler starts and has answered, while a bounded middleware chain runs (runBoundedChain). */
  onHandler?: (running: boolean) => void;
  /** The handler's answer while it may still run, when it started before the chain was bounded. */
  handler?: Promise<ToolResult>;
  /** Set once the bounded chain answered the call (timeout, cancellation): the handler must not start after. */
  givenUp?: boolean;
  /** The chain's answer, once it returned one still running: settled, the handler must not start after either. */
  answer?: Promise<ToolResult>;
  /**
   * The output the handler answered with, capped already (outputResult): a middleware's result with another output,
   * or this one replaced in place, is capped again (withinOutputLimit).
   */
  ownOutput?: JsonValue;
}
