import type { ModelRetryNotice } from '../models/stream-model-step.ts';
import type { ApprovalRecord } from '../permissions/permission-types.ts';
import type { JsonValue, Message, ToolCatalogItem, ToolResult } from '../types.ts';
import type { AgentEvent } from './agent-event.ts';

/** How one Turn ended. */
export interface TurnResult {
  turnId: string;
  traceId: string;
  eventId: string;
  /** completed: the model answered without tool calls; max_steps: the step cap ended it (see `reason`). */
  status: 'completed' | 'max_steps' | 'cancelled' | 'error';
  /** The text of the last step: the reply. */
  text: string;
  steps: number;
  usage: { inputTokens: number; outputTokens: number };
  reason?: string;
  /** `suggestion`: what to check (a model call that failed says which Model, its URL and where it is declared). */
  error?: { code: string; message: string; suggestion?: string };
}

/** What one Step produced (returned through step middleware). */
export interface StepOutcome {
  text: string;
  toolCalls: number;
  finishReason: string;
  usage: { inputTokens: number; outputTokens: number };
  error?: { code: string; message: string; suggestion?: string };
}

/** Spec §2.1.3: step middleware may edit `toolCatalog` before the model sees it. */
export interface StepMiddlewareContext {
  readonly agentName: string;
  readonly instanceKey: string;
  readonly turnId: string;
  readonly stepIndex: number;
  /** True when this step's model loads tools marked `deferred` on demand (anthropic: defer_loading + tool search). */
  readonly deferredTools?: boolean;
  toolCatalog: ToolCatalogItem[];
  /** What the model reads this step: a copy, so a middleware can trim it without touching the stored conversation. */
  messages: Message[];
  metadata: Record<string, JsonValue>;
  next(): Promise<StepOutcome>;
}

export interface TurnMiddlewareContext {
  readonly agentName: string;
  readonly instanceKey: string;
  readonly turnId: string;
  readonly event: AgentEvent;
  metadata: Record<string, JsonValue>;
  next(): Promise<TurnResult>;
}

export type StepMiddleware = (ctx: StepMiddlewareContext) => Promise<StepOutcome>;
export type TurnMiddleware = (ctx: TurnMiddlewareContext) => Promise<TurnResult>;

/** Watches a turn as it runs (the CLI prints from it). Errors thrown by observers are swallowed. */
export interface TurnObserver {
  onTurnStart?(event: { turnId: string; traceId: string; event: AgentEvent }): void;
  onStepStart?(event: { turnId: string; stepIndex: number; toolNames: string[] }): void;
  /** An attempt of the step's model call failed and will be retried (connection refused, 429, 5xx). */
  onModelRetry?(event: { turnId: string; stepIndex: number; model: string } & ModelRetryNotice): void;
  onTextDelta?(text: string): void;
  onToolCallStart?(event: { toolCallId: string; toolName: string; args: unknown }): void;
  onToolCallEnd?(event: { toolCallId: string; toolName: string; result: ToolResult; durationMs: number }): void;
  onStepEnd?(event: { turnId: string; stepIndex: number; outcome: StepOutcome }): void;
  onTurnEnd?(result: TurnResult): void;
  /** A call waits for a person: answer with AgentInstance.answerApproval (or `gdn approvals`). */
  onApprovalRequested?(record: ApprovalRecord): void;
  /** An approval was answered, expired or cancelled. */
  onApprovalResolved?(record: ApprovalRecord): void;
}
