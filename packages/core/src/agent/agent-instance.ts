import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { ModelMessage as AiModelMessage } from 'ai';
import type { AgentResource, ModelResource } from '../config/resources.ts';
import { GoondanError } from '../errors/goondan-error.ts';
import { thrownStackOf } from '../errors/thrown-stack.ts';
import { toToolError } from '../errors/to-tool-error.ts';
import { describeModelCallFailure } from '../models/describe-model-call-failure.ts';
import type { ModelCallSettings } from '../models/model-call-settings.ts';
import { PromptCache } from '../models/prompt-cache.ts';
import { streamModelStep } from '../models/stream-model-step.ts';
import { toToolCall } from '../models/to-tool-call.ts';
import type { AgentsRuntime } from '../orchestrator/agents-runtime.ts';
import { ApprovalCoordinator, type ApprovalGate } from '../permissions/approvals.ts';
import type {
  ApprovalAnswer,
  ApprovalRecord,
  AuditEntry,
  CallSource,
  PermissionDecision,
  RiskCategory,
} from '../permissions/permission-types.ts';
import { redactKnownSecrets } from '../permissions/redact-known-secrets.ts';
import { composeMiddleware } from '../pipeline/compose-middleware.ts';
import { wrongMiddlewareResult } from '../pipeline/middleware-results.ts';
import type { ApprovalStore } from '../store/approval-store.ts';
import type { ConversationStore } from '../store/conversation-store.ts';
import type { InboxStore } from '../store/inbox-store.ts';
import type { RuntimeNotices } from '../store/runtime-notices.ts';
import { newSpanId, newTraceId } from '../store/trace-ids.ts';
import type { SpanRecord, TraceStore } from '../store/trace-store.ts';
import type { SpanContent, SpanTelemetry } from '../telemetry/span-telemetry.ts';
import type { AgentToolset, UnavailableTool } from '../tools/agent-toolset.ts';
import { isThenable } from '../tools/invoke-handler.ts';
import type { ToolCatalog } from '../tools/tool-catalog.ts';
import type {
  JsonValue,
  Message,
  MessageSource,
  ModelMessage,
  ToolCall,
  ToolCatalogItem,
  ToolResult,
} from '../types.ts';
import { type AgentEvent, isoNow, isUserId, newId, type TurnAuth, USER_ID_RULE } from './agent-event.ts';
import { boundByCancellation, type ChainCore } from './bound-by-cancellation.ts';
import { closeUnfinishedTurn, turnNote } from './close-unfinished-turn.ts';
import { createMessage, toolCallsOf } from './create-message.ts';
import { distinctToolCallIds } from './distinct-tool-call-ids.ts';
import { abortedResult, answerUnansweredToolCalls, findUnansweredToolCalls } from './repair-conversation.ts';
import { repairToolResults } from './repair-tool-results.ts';
import { modelMessagesOf } from './step-messages.ts';
import { supportsDeferredTools, toModelTools } from './to-model-tools.ts';
import { toToolResultPart } from './to-tool-result-part.ts';
import { type SpanWriteTiming, TraceWrites } from './trace-writes.ts';
import type {
  StepMiddleware,
  StepMiddlewareContext,
  StepOutcome,
  TurnMiddleware,
  TurnMiddlewareContext,
  TurnObserver,
  TurnResult,
} from './turn-types.ts';
import { untilAborted } from './until-aborted.ts';

export const DEFAULT_MAX_STEPS_PER_TURN = 16;
export const DEFAULT_TOOL_CONCURRENCY = 4;

export interface AgentInstanceOptions {
  agent: AgentResource;
  instanceKey: string;
  toolset: AgentToolset;
  model: LanguageModelV4;
  callSettings?: ModelCallSettings;
  /** The Model resource behind `model`, so a failed call can say which Model, its URL and where it is declared. */
  modelResource?: ModelResource;
  conversation: ConversationStore;
  traces: TraceStore;
  workdir: string;
  logger?: Console;
  observer?: TurnObserver;
  /** False for tool-only front ends (gdn tools call, mcp serve): finished jobs are polled, no turn starts. */
  deliverJobCompletions?: boolean;
  /** False: opened without the writer lock (tool-only front ends); the conversation is not repaired, no turn runs. */
  writer?: boolean;
  /**
   * Throws E_STORE_REMOVED once the instance's files were deleted or replaced under this process; called before each
   * turn and reset, so nothing more is written to a database no one will read again.
   */
  storeInPlace?: () => void;
  /** Sent events waiting for this instance (agent processes handle them first, then take them out). */
  inbox?: InboxStore;
  /** Notes the runtime left for the next turn (a new bundle revision): stored before its event, seen once. */
  notices?: Pick<RuntimeNotices, 'take'>;
  /** Told when the conversation is reset and when the instance closes (extensions). */
  onReset?: readonly (() => void)[];
  onClose?: readonly (() => void | Promise<void>)[];
  turnMiddlewares?: readonly TurnMiddleware[];
  stepMiddlewares?: readonly StepMiddleware[];
  maxStepsPerTurn?: number;
  toolConcurrency?: number;
  /** Reaches tools as ctx.agents (set by the agent process under an Orchestrator). */
  agents?: AgentsRuntime;
  /** Where approvals, grants and step checkpoints are kept. Without it `ask` calls are refused (nobody can answer). */
  approvalStore?: ApprovalStore;
  /** Applied to arguments stored with approvals (secrets redacted). */
  redact?: (value: JsonValue) => JsonValue;
  /** Told about every tool call (the audit log). */
  audit?: (entry: AuditEntry) => void;
  /**
   * Where `audit` queues its rows (an AuditBatch): they are written in the same transaction as the next write of
   * the conversation, so no tool result reaches the model, or the conversation, before its audit row is on disk.
   */
  auditLog?: {
    commitWith(write: () => void): void;
    flush(): void;
    /** Which of these calls of the turn have an audit row already (written or queued). */
    loggedCalls?(toolCallIds: readonly string[], turnId: string | null): Set<string>;
  };
  /** Where spans go besides the trace store (OpenTelemetry export, docs/telemetry.md). */
  telemetry?: SpanTelemetry;
  /**
   * How a step calls its model (default `streamModelStep`): a wrapper may observe or time the call (bench/step.ts
   * measures the runtime's own work this way) but must return what the default returns.
   */
  callModel?: typeof streamModelStep;
  /** When ended turns' spans are written (default: quiet for 2 ms, at the latest 20 ms after the first). */
  spanWrites?: SpanWriteTiming;
}

/** The source of calls made outside a turn (`gdn tools call`, previews): the person at the command line. */
export const COMMAND_LINE_SOURCE: CallSource = { kind: 'user', name: 'cli' };

/** A turn that stopped (process ended) while calls of its last step waited for approval; `resume` finishes it. */
interface SuspendedTurn {
  turnId: string | null;
  traceId: string | null;
  source: CallSource;
  assistant: Message;
  calls: ToolCall[];
}

interface TurnState {
  event: AgentEvent;
  source: CallSource;
  /**
   * What the turn hands to the turns it asks for (spec v1 §12.5.3), made once: the chain's first source, and the
   * person it acts for (its event's auth.userId; its messages' `metadata.userId`).
   */
  auth: TurnAuth;
  /** Set when the turn resumes a suspended one: its unanswered calls run first, no user message is added. */
  resume?: SuspendedTurn;
  turnId: string;
  traceId: string;
  turnSpanId: string;
  signal: AbortSignal;
  metadata: Record<string, JsonValue>;
  /** The core's answer once it started, and whether the chain was given up (boundByCancellation). */
  turnCore?: ChainCore<TurnResult>;
}

interface StepState extends TurnState {
  stepIndex: number;
  /** Set by previewCatalog: run step middleware, then stop before the model. */
  preview?: (catalog: ToolCatalog) => void;
  toolCatalog: StepMiddlewareContext['toolCatalog'];
  /** Tools of the agent's catalog denied to this turn, taken out before step middleware (still told as denied). */
  hiddenByPolicy?: readonly string[];
  /**
   * The messages this step sends, when a step middleware asked for them (a copy it may change); untouched, the
   * step sends the conversation as it stands without copying it (stepMessages).
   */
  modelMessages?: Message[];
  /** How many messages the conversation held when the step started (what `modelMessages` copies). */
  historyLength: number;
  stepMetadata: Record<string, JsonValue>;
  /** The core's answer once it started, and whether the chain was given up (boundByCancellation). */
  stepCore?: ChainCore<StepOutcome>;
}

const zeroUsage = () => ({ inputTokens: 0, outputTokens: 0 });

/** What a redelivered event's "turn" returns: nothing ran, nothing was appended. */
const duplicateResult = (eventId: string): TurnResult => ({
  turnId: '',
  traceId: '',
  eventId,
  status: 'completed',
  text: '',
  steps: 0,
  usage: zeroUsage(),
  reason: `Event ${eventId} was handled before (a redelivery); its turn did not run again.`,
});

/**
 * One agent instance: a FIFO of AgentEvents, one Turn at a time; each Turn runs Steps (catalog → step
 * middleware → model → tool calls through the executor → results appended) until the model stops calling tools
 * or the step cap is reached. The conversation is event-sourced on disk; every append is durable at once.
 */
export class AgentInstance {
  readonly agentName: string;
  readonly instanceKey: string;
  private readonly messages: Message[];
  /** `messages` as the model reads them (each message's data), kept beside it; null until a step needs it. */
  private history: AiModelMessage[] | null = null;
  /** `history` as the model received it: each step converts only the messages added since (prompt-cache.ts). */
  private readonly prompts = new PromptCache();
  private readonly warned = new Set<string>();
  private readonly runTurnPipeline: (state: TurnState) => Promise<TurnResult>;
  private readonly runStepPipeline: (state: StepState) => Promise<StepOutcome>;
  private queue: Promise<unknown> = Promise.resolve();
  /** Spans of the running step, written together when it ends (one commit per step, not per span). */
  private readonly spans: TraceWrites;
  private turnsServed = 0;
  private waiting = 0;
  private closed = false;
  private turnRunning = false;
  private suspended: SuspendedTurn | null = null;
  private readonly approvals: ApprovalCoordinator | null;

  constructor(private readonly options: AgentInstanceOptions) {
    this.agentName = options.agent.metadata.name;
    this.instanceKey = options.instanceKey;
    this.messages = options.conversation.load();
    this.spans = new TraceWrites({
      traces: options.traces,
      conversation: options.conversation,
      commit: (write) => this.commit(write),
      warn: (line) => this.options.logger?.warn?.(line),
      ...(options.spanWrites ? { timing: options.spanWrites } : {}),
    });
    const store = options.approvalStore;
    this.approvals = store
      ? new ApprovalCoordinator({
          store,
          agent: this.agentName,
          instanceKey: this.instanceKey,
          timeoutMs: options.toolset.executor.permissions.approvalTimeoutMs,
          ...(options.redact ? { redact: options.redact } : {}),
          onRequested: (record) => this.notify('onApprovalRequested', record),
          onResolved: (record) => this.notify('onApprovalResolved', record),
        })
      : null;
    // A crash or kill between a tool call and its result leaves a call unanswered. When one of them was waiting
    // for approval the turn is suspended (resume() finishes it); otherwise each gets the result saved before the
    // crash, or E_TOOL_ABORTED, before anything else happens.
    if (options.writer !== false) this.repairStoredConversation();
    const unanswered = options.writer === false ? null : findUnansweredToolCalls(this.messages);
    if (unanswered) {
      const since = new Date(unanswered.assistant.createdAt).getTime();
      const asked = store
        ? unanswered.calls
            .map((call) => store.forToolCall(call.id, { toolName: call.name, since }))
            .find((record) => record !== null)
        : undefined;
      if (asked) {
        this.suspended = {
          turnId: asked.turnId,
          traceId: asked.traceId,
          source: asked.source,
          assistant: unanswered.assistant,
          calls: unanswered.calls,
        };
      } else {
        const saved = store?.savedResults(unanswered.calls.map((call) => call.id));
        this.auditInterruptedCalls(unanswered.calls, unanswered.assistant, saved);
        const repair = answerUnansweredToolCalls(
          this.messages,
          'The agent stopped before this tool call finished.',
          saved,
        );
        if (repair) this.appendMessages([repair], null);
      }
    }
    if (!this.suspended && options.writer !== false) store?.clearResults();
    // A process that ended before the model answered left the turn's user message unanswered: closed like a turn
    // that failed, so the next request does not hold two user messages in a row.
    if (!this.suspended && options.writer !== false) this.closeInterruptedTurn();
    // Spans a dead process left running would show as running forever; a suspended turn's trace goes on.
    if (options.writer !== false)
      options.traces.closeInterrupted(this.suspended?.traceId ? [this.suspended.traceId] : []);
    this.runTurnPipeline = composeMiddleware<TurnState, TurnMiddlewareContext, TurnResult>({
      middlewares: options.turnMiddlewares ?? [],
      bind: (state, next) => ({
        agentName: this.agentName,
        instanceKey: this.instanceKey,
        turnId: state.turnId,
        event: state.event,
        get metadata() {
          return state.metadata;
        },
        set metadata(value) {
          state.metadata = value;
        },
        next,
      }),
      core: (state) => {
        const holder = state.turnCore;
        if (holder?.givenUp) return Promise.resolve(cancelledTurn(state));
        const running = this.runSteps(state);
        if (holder) holder.core = running;
        return running;
      },
    });
    const messages = this.messages;
    this.runStepPipeline = composeMiddleware<StepState, StepMiddlewareContext, StepOutcome>({
      middlewares: options.stepMiddlewares ?? [],
      bind: (state, next) => ({
        agentName: this.agentName,
        instanceKey: this.instanceKey,
        turnId: state.turnId,
        stepIndex: state.stepIndex,
        deferredTools: supportsDeferredTools(this.options.model.provider),
        get messages() {
          state.modelMessages ??= messages.slice(0, state.historyLength);
          return state.modelMessages;
        },
        set messages(value) {
          state.modelMessages = value;
        },
        get toolCatalog() {
          return state.toolCatalog;
        },
        set toolCatalog(value) {
          state.toolCatalog = value;
        },
        get metadata() {
          return state.stepMetadata;
        },
        set metadata(value) {
          state.stepMetadata = value;
        },
        next,
      }),
      core: (state) => {
        const holder = state.stepCore;
        if (holder?.givenUp) return Promise.resolve(cancelledStep());
        const running = this.runStep(state);
        if (holder) holder.core = running;
        return running;
      },
    });
    // Spec §10.2 / decision 5: a finished pending job reaches the agent as an event (a turn starts if idle).
    options.toolset.executor.jobs.onComplete(({ handle, toolName, result, auth }) => {
      if (this.closed || options.deliverJobCompletions === false) return;
      void this.enqueue({
        id: newId('evt'),
        type: 'tool.job.completed',
        input: `Tool job ${handle} (${toolName}) finished: ${JSON.stringify(result)}`,
        source: { kind: 'system', name: 'jobs' },
        data: { handle, toolName, result: result as unknown as JsonValue },
        // The turn that started the job: its first source's rules and its user go on in the completion's turn.
        ...(auth ? { auth } : {}),
        createdAt: isoNow(),
      });
    });
  }

  /** The conversation as it stands (a copy). */
  conversation(): Message[] {
    return [...this.messages];
  }

  /**
   * The catalog the model would see at the next Step: Agent spec.tools plus registered tools, after step
   * middleware (e.g. tool exposure). No model call, nothing appended.
   */
  async previewCatalog(options: { source?: CallSource } = {}): Promise<ToolCatalog> {
    let seen: ToolCatalog | undefined;
    const source = options.source ?? COMMAND_LINE_SOURCE;
    const { executor, catalogBuilder } = this.options.toolset;
    // Step middleware starts without the denied tools; the catalog remembers them, so a call to one is E_POLICY_DENIED.
    const visible = executor.visibleItems(catalogBuilder.initialItems(), source);
    await this.previewStep(
      (catalog) => {
        seen = catalog;
      },
      source,
      visible.items,
    );
    this.spans.discard();
    return executor.visibleCatalog(seen ?? catalogBuilder.build(), source, visible.hidden);
  }

  /** Runs step middleware up to the model call; a middleware that throws becomes E_TURN_FAILED naming the cause. */
  private async previewStep(
    preview: (catalog: ToolCatalog) => void,
    source: CallSource,
    toolCatalog: ToolCatalogItem[],
  ): Promise<void> {
    try {
      await this.runStepPipeline({
        event: {
          id: newId('evt'),
          type: 'catalog.preview',
          input: '',
          source: { kind: 'system', name: 'preview' },
          createdAt: isoNow(),
        },
        source,
        auth: turnAuth(source),
        turnId: newId('turn'),
        traceId: newTraceId(),
        turnSpanId: newSpanId(),
        signal: new AbortController().signal,
        metadata: {},
        stepIndex: this.messages.length === 0 ? 0 : 1,
        toolCatalog,
        historyLength: this.messages.length,
        stepMetadata: {},
        preview,
      });
    } catch (thrown) {
      throw new GoondanError(
        'E_TURN_FAILED',
        `Step middleware failed: ${(thrown as Error)?.message ?? String(thrown)}`,
        {
          cause: thrown,
        },
      );
    }
  }

  /**
   * Calls one tool as the model would at the next Step (catalog after step middleware, guard, validation, toolCall
   * middleware, handler), with an assistant message holding the call. Nothing is appended to the conversation.
   */
  async callTool(
    call: ToolCall,
    options: { signal?: AbortSignal; workdir?: string; source?: CallSource; approvals?: ApprovalGate } = {},
  ): Promise<ToolResult> {
    const source = options.source ?? COMMAND_LINE_SOURCE;
    const catalog = await this.previewCatalog({ source });
    const message = createMessage(
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.args }],
      },
      { type: 'assistant' },
    );
    const result = await this.options.toolset.executor.execute(call, {
      catalog,
      scope: {
        agentName: this.agentName,
        instanceKey: this.instanceKey,
        turnId: newId('turn'),
        message,
        workdir: options.workdir ?? this.options.workdir,
        logger: this.options.logger ?? console,
        signal: options.signal,
        source,
        ...this.permissionScope(),
        ...(options.approvals ? { approvals: options.approvals } : {}),
        ...(this.options.agents ? { agents: this.options.agents } : {}),
      },
    });
    // The caller (a person, an MCP client) sees the result only once its audit row is on disk.
    if (!this.closed) this.options.auditLog?.flush();
    return result;
  }

  /** Tools of the bundle this machine cannot offer (their spec.requires is unmet), with the reason. */
  unavailableTools(): UnavailableTool[] {
    return [...(this.options.toolset.unavailable?.values() ?? [])];
  }

  /** A tool's risk category and what the permissions decide for a call from `source` (null: not registered). */
  permissionOf(
    toolName: string,
    source: CallSource = COMMAND_LINE_SOURCE,
  ): { category: RiskCategory; decision: PermissionDecision; rule: string } | null {
    return this.options.toolset.executor.verdictFor(toolName, source);
  }

  /** Approvals waiting for a person's answer in this instance, oldest first. */
  pendingApprovals(): ApprovalRecord[] {
    return this.approvals?.pending() ?? [];
  }

  /**
   * Answers a pending approval (approve once, approve for this conversation, or deny with a reason); the waiting
   * call goes on at once. Other processes answer through the database (`gdn approvals`), which this one polls.
   * @throws GoondanError E_APPROVAL_NOT_FOUND when the id is unknown or the approval is no longer pending.
   */
  answerApproval(id: string, answer: ApprovalAnswer): ApprovalRecord {
    this.assertOpen();
    const wrong = wrongApprovalAnswer(answer);
    if (wrong) throw new GoondanError('E_APPROVAL_ANSWER_INVALID', `Approval ${id}: the answer ${wrong}.`);
    if (!this.approvals)
      throw new GoondanError(
        'E_APPROVAL_NOT_FOUND',
        `Agent instance ${this.agentName}/${this.instanceKey} keeps no approvals.`,
      );
    return this.approvals.answer(id, answer);
  }

  /** True when a turn stopped by a restart waits to be resumed (its calls waited for approval). */
  get hasSuspendedTurn(): boolean {
    return this.suspended !== null;
  }

  /**
   * Finishes a turn that a restart interrupted while calls of its last step waited for approval: calls that had
   * finished keep their saved results, the asked ones wait for (or use) their stored answers, calls that were
   * running get E_TOOL_ABORTED; then the turn goes on with the next step. Null when nothing is suspended. Any
   * queued event resumes it first, so the conversation never continues past unanswered calls.
   */
  resume(options: { signal?: AbortSignal } = {}): Promise<TurnResult | null> {
    if (!this.suspended) return Promise.resolve(null);
    return this.enqueueResume(options.signal);
  }

  /** Sent events accepted for this instance and not handled yet (undefined without the writer lock). */
  get inbox(): InboxStore | undefined {
    return this.options.inbox;
  }

  /** The tool jobs of this instance (pending results), for polling. */
  get jobs() {
    return this.options.toolset.executor.jobs;
  }

  /** Events waiting behind the running turn. */
  get queueDepth(): number {
    return this.waiting;
  }

  /** Queues an event; resolves when its Turn ends. One Turn runs at a time, in arrival order. */
  enqueue(event: AgentEvent, options: { signal?: AbortSignal } = {}): Promise<TurnResult> {
    try {
      this.assertOpen();
      this.assertWriter();
      const wrong = wrongEvent(event);
      if (wrong)
        throw new GoondanError('E_EVENT_INVALID', `The event given to ${this.agentName}/${this.instanceKey} ${wrong}.`);
    } catch (thrown) {
      return Promise.reject(thrown);
    }
    if (this.suspended) void this.enqueueResume();
    this.waiting += 1;
    const run = this.queue.then(() => {
      this.waiting -= 1;
      return this.runTurnCounted(event, options.signal ?? new AbortController().signal);
    });
    this.queue = run.catch(() => {});
    return run;
  }

  /** A queued turn, counted while it runs (reset() is refused meanwhile). */
  private async runTurnCounted(event: AgentEvent, signal: AbortSignal, resume?: SuspendedTurn): Promise<TurnResult> {
    this.turnRunning = true;
    try {
      return await this.runTurn(event, signal, resume);
    } finally {
      this.turnRunning = false;
    }
  }

  /** After close(), nothing of the instance may be used: its database is closed. */
  private assertOpen(): void {
    if (this.closed)
      throw new GoondanError(
        'E_AGENT_SHUTTING_DOWN',
        `Agent instance ${this.agentName}/${this.instanceKey} is closed; open it again (openAgentInstance) to use it.`,
        { suggestion: 'Open the instance again; close() ends its use in this process.' },
      );
  }

  private enqueueResume(signal?: AbortSignal): Promise<TurnResult | null> {
    const suspended = this.suspended;
    if (!suspended) return Promise.resolve(null);
    this.suspended = null;
    const event: AgentEvent = {
      id: newId('evt'),
      type: 'turn.resume',
      input: '',
      source: suspended.source as AgentEvent['source'],
      ...(suspended.traceId ? { traceContext: { traceId: suspended.traceId } } : {}),
      createdAt: isoNow(),
    };
    this.waiting += 1;
    const run = this.queue.then(() => {
      this.waiting -= 1;
      return this.runTurnCounted(event, signal ?? new AbortController().signal, suspended);
    });
    this.queue = run.catch(() => {});
    return run;
  }

  /**
   * Results a second writer (before the writer lock existed) or a bug left away from their calls are put back
   * after them, in one transaction (truncate + appends), so every provider accepts the conversation again.
   */
  private repairStoredConversation(): void {
    const repair = repairToolResults(this.messages);
    if (!repair) return;
    const events = repair.messages.map((message) => ({ type: 'append' as const, message }));
    this.options.conversation.record([{ type: 'truncate' }, ...events]);
    this.messages.splice(0, this.messages.length, ...repair.messages);
    this.history = null;
    this.prompts.clear();
    (this.options.logger ?? console).warn?.(
      `Repaired the conversation of ${this.agentName}/${this.instanceKey}: ${repair.moved} tool result(s) put back after their call, ${repair.aborted} call(s) without a result answered with E_TOOL_ABORTED, ${repair.dropped} stray result(s) dropped.`,
    );
  }

  /** The end of a turn is written like its steps; a failed write is reported, the turn's result stands. */
  /** The note closing a turn whose process ended before the model answered its user message (on open). */
  private closeInterruptedTurn(): void {
    const last = this.messages.at(-1);
    if (last?.data.role !== 'user') return;
    const note = turnNote(
      '[This turn did not complete: the agent stopped (its process ended) before answering. The request above was not carried out.]',
      { turnOutcome: 'interrupted' },
    );
    this.appendQuietly([note], this.options.conversation.turnIdOf(last.id));
  }

  private appendQuietly(messages: Message[], turnId: string | null): void {
    try {
      this.appendMessages(messages, turnId);
    } catch (thrown) {
      this.options.logger?.warn?.(`closing the turn failed: ${(thrown as Error).message}`);
    }
  }

  /** Turns and resets write the conversation: only the process holding the instance's writer lock may. */
  private assertWriter(): void {
    if (this.options.writer === false)
      throw new Error(`Agent instance ${this.agentName}/${this.instanceKey} was opened without the writer lock.`);
  }

  /** An error result when the instance's files are no longer those it opened (E_STORE_REMOVED), else null. */
  private storeRemoved(event: AgentEvent): TurnResult | null {
    try {
      this.options.storeInPlace?.();
      return null;
    } catch (thrown) {
      const error = toToolError(thrown, { fallbackCode: 'E_STORE_REMOVED' });
      return {
        turnId: newId('turn'),
        traceId: event.traceContext?.traceId ?? newTraceId(),
        eventId: event.id,
        status: 'error',
        text: '',
        steps: 0,
        usage: zeroUsage(),
        error: {
          code: error.code!,
          message: error.message,
          ...(error.suggestion ? { suggestion: error.suggestion } : {}),
        },
      };
    }
  }

  /** Starts the conversation afresh (an event like any other: `truncate`). */
  reset(): void {
    this.assertOpen();
    this.assertWriter();
    this.options.storeInPlace?.();
    // What the running turn appends next would answer calls the cleared conversation no longer holds.
    if (this.turnRunning)
      throw new GoondanError(
        'E_INSTANCE_BUSY',
        `Agent instance ${this.agentName}/${this.instanceKey} is running a turn; the conversation is reset between turns.`,
        { suggestion: 'Cancel the turn (abort the signal given to enqueue) or wait for it to end, then reset.' },
      );
    this.approvals?.reset();
    this.suspended = null;
    this.options.conversation.truncate();
    this.messages.length = 0;
    this.history = null;
    this.prompts.clear();
    for (const listener of this.options.onReset ?? []) {
      try {
        listener();
      } catch (thrown) {
        this.options.logger?.warn?.(`reset listener failed: ${(thrown as Error)?.message ?? String(thrown)}`);
      }
    }
  }

  /** Stops jobs and lets extensions clean up (close MCP connections, timers). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.spans.close();
    this.approvals?.close();
    this.options.toolset.executor.jobs.abortAll();
    for (const listener of this.options.onClose ?? []) {
      await Promise.resolve()
        .then(listener)
        .catch((thrown) =>
          this.options.logger?.warn?.(`close listener failed: ${(thrown as Error)?.message ?? String(thrown)}`),
        );
    }
  }

  private async runTurn(event: AgentEvent, signal: AbortSignal, resume?: SuspendedTurn): Promise<TurnResult> {
    // Files deleted under the process: the turn is refused (an error result, nothing written), not lost.
    const removed = this.storeRemoved(event);
    if (removed) return removed;
    // At-least-once senders (the scheduler) may deliver an event again after a crash: its turn ran once already.
    if (!resume && this.options.conversation.hasEvent(event.id)) return duplicateResult(event.id);
    const turnId = resume?.turnId ?? newId('turn');
    const traceId = event.traceContext?.traceId ?? newTraceId();
    const turnSpanId = newSpanId();
    const startedAt = Date.now();
    const span = (status: SpanRecord['status'], attributes: Record<string, JsonValue>): SpanRecord => ({
      traceId,
      spanId: turnSpanId,
      parentSpanId: event.traceContext?.parentSpanId ?? null,
      kind: 'turn',
      name: `turn ${this.agentName}`,
      startedAt,
      endedAt: status === 'running' ? null : Date.now(),
      status,
      attributes: {
        agent: this.agentName,
        instance: this.instanceKey,
        turnId,
        eventType: event.type,
        ...(event.traceContext?.caller ? { caller: event.traceContext.caller } : {}),
        ...attributes,
      },
    });
    this.record(span('running', {}));
    // A new turn's span is written with its user message (one commit); a resumed turn has no message to add.
    if (resume) this.spans.flush();
    this.notify('onTurnStart', { turnId, traceId, event });
    let result: TurnResult;
    // How long the conversation was before the turn wrote anything: a new turn that stored nothing (its message was
    // refused, a turn middleware failed first) has no message of its own to close.
    let before = -1;
    try {
      if (!resume) {
        this.answerCallsLeftOpen();
        before = this.messages.length;
      }
      const userId = resume ? resume.assistant.metadata.userId : event.auth?.userId;
      const source = resume ? resume.source : turnSource(event);
      const turnState: TurnState = {
        event,
        source,
        auth: turnAuth(source, typeof userId === 'string' ? userId : undefined),
        ...(resume ? { resume } : {}),
        turnId,
        traceId,
        turnSpanId,
        signal,
        metadata: {},
        turnCore: {},
      };
      result = await boundByCancellation(
        Promise.resolve(this.runTurnPipeline(turnState)),
        turnState.turnCore!,
        signal,
        (core) => core ?? cancelledTurn(turnState),
      );
      const wrong = wrongMiddlewareResult('turn', result);
      if (wrong) throw new GoondanError('E_TURN_FAILED', `The turn failed: ${wrong}`);
    } catch (thrown) {
      const error = toToolError(thrown, { fallbackCode: 'E_TURN_FAILED' });
      result = {
        turnId,
        traceId,
        eventId: event.id,
        status: 'error',
        text: '',
        steps: 0,
        usage: zeroUsage(),
        error: { code: error.code!, message: error.message },
      };
    }
    // Known secret values never leave a turn: not in its reply, its error, or anything built from them.
    result = redactKnownSecrets(result);
    // A failed turn does not leave its user message unanswered (the instance closing keeps approvals open).
    if (!this.closed && this.messages.length !== before)
      this.appendQuietly(closeUnfinishedTurn(this.messages, result), turnId);
    this.record(
      span(result.status === 'cancelled' ? 'cancelled' : result.status === 'error' ? 'error' : 'ok', {
        status: result.status,
        steps: result.steps,
        inputTokens: result.usage.inputTokens,
        outputTokens: result.usage.outputTokens,
        ...(result.error ? { errorCode: result.error.code, errorMessage: result.error.message } : {}),
      }),
      this.captureContent() ? { input: event.input, output: result.text } : undefined,
    );
    this.turnsServed += 1;
    this.spans.turnEnded();
    this.notify('onTurnEnd', result);
    return result;
  }

  private async runSteps(state: TurnState): Promise<TurnResult> {
    const { event, turnId, traceId, signal } = state;
    const source: MessageSource =
      event.source.kind === 'agent'
        ? { type: 'agent', agentName: event.source.name }
        : event.source.kind === 'user'
          ? { type: 'user' }
          : { type: 'system' };
    let firstStep = 0;
    if (state.resume) {
      // The step that was interrupted: its calls are answered now, then the turn goes on.
      const catalog = await this.previewCatalog({ source: state.source });
      await this.executeToolCalls({
        state: { ...state, stepIndex: 0 },
        calls: state.resume.calls,
        assistant: [state.resume.assistant],
        catalog,
        stepSpanId: state.turnSpanId,
        resumed: true,
      });
      firstStep = 1;
    } else {
      this.appendNotices(turnId);
      const message = createMessage({ role: 'user', content: event.input }, source);
      if (state.auth.userId) message.metadata.userId = state.auth.userId;
      this.appendMessages([message], turnId, event.id);
    }
    const usage = zeroUsage();
    const maxSteps = this.options.maxStepsPerTurn ?? DEFAULT_MAX_STEPS_PER_TURN;
    const base = { turnId, traceId, eventId: event.id, usage };
    let text = '';
    for (let stepIndex = firstStep; ; stepIndex += 1) {
      if (signal.aborted)
        return { ...base, status: 'cancelled', text, steps: stepIndex, reason: 'The turn was cancelled.' };
      if (stepIndex >= maxSteps) {
        return {
          ...base,
          status: 'max_steps',
          text,
          steps: stepIndex,
          reason: `Stopped after ${maxSteps} steps (policy maxStepsPerTurn); the model was still calling tools.`,
        };
      }
      const { executor, catalogBuilder } = this.options.toolset;
      // Step middleware starts without the tools denied to this turn (it cannot offer what may not be called).
      const visible = executor.visibleItems(catalogBuilder.initialItems(), state.source);
      const stepState: StepState = {
        ...state,
        stepIndex,
        toolCatalog: visible.items,
        hiddenByPolicy: visible.hidden,
        historyLength: this.messages.length,
        stepMetadata: {},
        stepCore: {},
      };
      const outcome = await boundByCancellation(
        Promise.resolve(this.runStepPipeline(stepState)),
        stepState.stepCore!,
        signal,
        (core) => core ?? cancelledStep(),
      );
      const wrong = wrongMiddlewareResult('step', outcome);
      if (wrong) throw new GoondanError('E_TURN_FAILED', `Step ${stepIndex} failed: ${wrong}`);
      usage.inputTokens += outcome.usage.inputTokens;
      usage.outputTokens += outcome.usage.outputTokens;
      text = outcome.text;
      this.notify('onStepEnd', { turnId, stepIndex, outcome });
      if (signal.aborted)
        return { ...base, status: 'cancelled', text, steps: stepIndex + 1, reason: 'The turn was cancelled.' };
      if (outcome.error) return { ...base, status: 'error', text, steps: stepIndex + 1, error: outcome.error };
      if (outcome.toolCalls === 0) {
        // A model that answered nothing at all (no text, no call) left the user message unanswered: a note stands
        // for its answer, so the next request does not hold two user messages in a row.
        if (this.messages.at(-1)?.data.role === 'user')
          this.appendQuietly(
            [turnNote('[The model answered nothing to the request above.]', { turnOutcome: 'empty' })],
            turnId,
          );
        return { ...base, status: 'completed', text, steps: stepIndex + 1, reason: outcome.finishReason };
      }
    }
  }

  /** The core of one Step, after step middleware has shaped `toolCatalog`. */
  private async runStep(state: StepState): Promise<StepOutcome> {
    const { toolset, model } = this.options;
    // Tools the permissions deny to this turn's source are not shown (the executor refuses them anyway).
    const catalog = toolset.executor.visibleCatalog(
      toolset.catalogBuilder.finalize(state.toolCatalog),
      state.source,
      state.hiddenByPolicy,
    );
    if (state.preview) {
      state.preview(catalog);
      return { text: '', toolCalls: 0, finishReason: 'preview', usage: zeroUsage() };
    }
    const stepSpanId = newSpanId();
    const stepStarted = Date.now();
    this.notify('onStepStart', { turnId: state.turnId, stepIndex: state.stepIndex, toolNames: catalog.names() });
    const modelSpanId = newSpanId();
    const modelStarted = Date.now();
    const outcome: StepOutcome = { text: '', toolCalls: 0, finishReason: 'unknown', usage: zeroUsage() };
    let assistant: Message[] = [];
    let calls: ToolCall[] = [];
    const cache: Record<string, number> = {};
    let warnings: string[] | undefined;
    // Before the model call: messages a step middleware broke end the turn (E_TURN_FAILED), not as a model failure.
    const messages = this.stepMessages(state);
    try {
      const result = await untilAborted(
        (this.options.callModel ?? streamModelStep)({
          model,
          ...(this.options.agent.spec.prompt?.system ? { instructions: this.options.agent.spec.prompt.system } : {}),
          messages,
          // Each message converted for the model once: the kept history, or a middleware's list that keeps the same
          // message objects in front from step to step.
          promptCache: this.prompts,
          tools: await toModelTools(catalog.items, { deferred: supportsDeferredTools(model.provider) }),
          abortSignal: state.signal,
          ...(this.options.callSettings ? { settings: this.options.callSettings } : {}),
          onTextDelta: (delta) => this.notify('onTextDelta', delta),
          // Each failed attempt that is retried is told as it happens (onModelRetry), not only the last one.
          onRetry: (notice) =>
            this.notify('onModelRetry', {
              turnId: state.turnId,
              stepIndex: state.stepIndex,
              model: this.options.modelResource?.metadata.name ?? `${model.provider}:${model.modelId}`,
              ...notice,
            }),
        }),
        state.signal,
      );
      if (state.signal.aborted) return { ...outcome, finishReason: 'cancelled' };
      const { cacheReadTokens, cacheWriteTokens, ...usage } = result.usage;
      outcome.text = result.text;
      outcome.finishReason = result.finishReason;
      outcome.usage = usage;
      if (cacheReadTokens !== undefined) cache.cacheReadTokens = cacheReadTokens;
      if (cacheWriteTokens !== undefined) cache.cacheWriteTokens = cacheWriteTokens;
      // A call the provider ran itself (Anthropic's tool search) is answered already, in the same response.
      calls = result.toolCalls.filter((call) => call.providerExecuted !== true).map(toToolCall);
      outcome.toolCalls = calls.length;
      if (result.warnings.length > 0) {
        warnings = result.warnings;
        this.warnOnce(model, result.warnings);
      }
      ({ assistant, calls } = distinctToolCallIds(
        result.messages.map((message) => {
          const made = createMessage(message as unknown as ModelMessage, { type: 'assistant', stepId: stepSpanId });
          // A tool reads who the turn acts for from the message holding its call (OAuth's subjectMode: user).
          if (state.auth.userId) made.metadata.userId = state.auth.userId;
          return made;
        }),
        calls,
      ));
    } catch (thrown) {
      if (state.signal.aborted) return { ...outcome, finishReason: 'cancelled' };
      const error = toToolError(thrown, { fallbackCode: 'E_MODEL_CALL_FAILED' });
      const failure = { code: error.code!, message: error.message };
      outcome.error = describeModelCallFailure({ error: failure, thrown, resource: this.options.modelResource });
    }
    this.record(
      {
        traceId: state.traceId,
        spanId: modelSpanId,
        parentSpanId: stepSpanId,
        kind: 'model',
        name: `model ${model.provider}:${model.modelId}`,
        startedAt: modelStarted,
        endedAt: Date.now(),
        status: outcome.error ? 'error' : 'ok',
        attributes: {
          provider: model.provider,
          model: model.modelId,
          inputTokens: outcome.usage.inputTokens,
          outputTokens: outcome.usage.outputTokens,
          ...cache,
          ...(warnings ? { warnings } : {}),
          finishReason: outcome.finishReason,
          toolCalls: outcome.toolCalls,
          tools: catalog.size,
          ...(outcome.error ? { errorCode: outcome.error.code, errorMessage: outcome.error.message } : {}),
        },
      },
      this.captureContent() ? this.modelContent(messages, assistant) : undefined,
    );
    // The step's span goes out in the same commit as its last messages (a step's text, or its tool results).
    let stepRecorded = false;
    const recordStep = () => {
      if (stepRecorded) return;
      stepRecorded = true;
      this.record({
        traceId: state.traceId,
        spanId: stepSpanId,
        parentSpanId: state.turnSpanId,
        kind: 'step',
        name: `step ${state.stepIndex}`,
        startedAt: stepStarted,
        endedAt: Date.now(),
        status: outcome.error ? 'error' : state.signal.aborted ? 'cancelled' : 'ok',
        // The catalog offered at this step (docs/console.md shows it per span).
        attributes: {
          stepIndex: state.stepIndex,
          tools: catalog.size,
          toolCalls: outcome.toolCalls,
          catalog: catalog.names(),
        },
      });
    };
    if (!outcome.error) {
      if (calls.length === 0) recordStep();
      // Tool calls are on disk before any tool runs: a crash mid-call leaves them to be answered, not forgotten.
      this.appendMessages(assistant, state.turnId);
      if (calls.length > 0) {
        await this.executeToolCalls({
          state,
          calls,
          assistant,
          catalog,
          stepSpanId,
          stepStartedAt: stepStarted,
          beforeResults: recordStep,
        });
      }
    }
    recordStep();
    this.spans.flush();
    return outcome;
  }

  private async executeToolCalls(options: {
    state: TurnState & { stepIndex: number };
    calls: ToolCall[];
    assistant: Message[];
    catalog: ToolCatalog;
    stepSpanId: string;
    stepStartedAt?: number;
    /** Calls of a step interrupted by a restart: saved results stand, unasked unfinished calls are aborted. */
    resumed?: boolean;
    /** Runs just before the results are written (the step records its span, to go out in the same commit). */
    beforeResults?: () => void;
  }): Promise<void> {
    const { state, calls, assistant, catalog, stepSpanId, resumed } = options;
    const { executor } = this.options.toolset;
    const store = this.options.approvalStore;
    // The assistant message that holds each call (spec §2.5.4), found once per step.
    const holders = new Map<string, Message>();
    for (const message of assistant) for (const part of toolCallsOf(message)) holders.set(part.toolCallId, message);
    const holder = (id: string) => holders.get(id) ?? assistant[0]!;
    const results: ToolResult[] = new Array(calls.length);
    const saved = resumed && store ? store.savedResults(calls.map((call) => call.id)) : new Map<string, ToolResult>();
    // Calls that wait for a person run beside the pool, so they hold back no other call of the step.
    const asks = new Set<number>();
    calls.forEach((call, index) => {
      if (executor.verdictFor(call.name, state.source)?.decision === 'ask') asks.add(index);
    });
    // While a call waits for approval, finished results are saved so a restart does not lose them.
    const checkpoint = store !== undefined && (asks.size > 0 || resumed === true);
    const runOne = async (index: number) => {
      const call = calls[index]!;
      const savedResult = saved.get(call.id);
      if (savedResult) {
        results[index] = savedResult;
        return;
      }
      if (resumed && !store?.forToolCall(call.id, { toolName: call.name, turnId: state.turnId })) {
        results[index] = abortedResult('The agent stopped before this tool call finished.');
        return;
      }
      const started = Date.now();
      // Made before the call so the tool can hand it on (an inter-agent request's callee turn nests under it).
      const toolSpanId = newSpanId();
      this.notify('onToolCallStart', { toolCallId: call.id, toolName: call.name, args: call.args });
      const timing = { approvalWaitMs: 0 };
      const result = await executor.execute(call, {
        timing,
        catalog,
        scope: {
          agentName: this.agentName,
          instanceKey: this.instanceKey,
          turnId: state.turnId,
          message: holder(call.id),
          workdir: this.options.workdir,
          logger: this.options.logger ?? console,
          signal: state.signal,
          trace: {
            traceId: state.traceId,
            spanId: toolSpanId,
            auth: state.auth,
            caller: {
              turnSpanId: state.turnSpanId,
              stepSpanId,
              stepIndex: state.stepIndex,
              stepStartedAt: options.stepStartedAt ?? started,
              toolName: call.name,
              toolCallId: call.id,
              toolStartedAt: started,
            },
          },
          source: state.source,
          ...this.permissionScope(holder(call.id).createdAt.getTime()),
          ...(this.options.agents ? { agents: this.options.agents } : {}),
        },
      });
      results[index] = result;
      if (checkpoint && !this.closed) this.saveCheckpoint(call.id, state.turnId, result);
      const endedAt = Date.now();
      // A wait for a person's approval is not the tool's time: the tool line leaves it out (the span keeps it).
      const durationMs = Math.max(0, endedAt - started - Math.round(timing.approvalWaitMs));
      this.notify('onToolCallEnd', { toolCallId: call.id, toolName: call.name, result, durationMs });
      this.record(
        {
          traceId: state.traceId,
          spanId: toolSpanId,
          parentSpanId: stepSpanId,
          kind: 'tool',
          name: `tool ${call.name}`,
          startedAt: started,
          endedAt,
          status: result.status === 'error' ? 'error' : 'ok',
          attributes: {
            toolName: call.name,
            toolCallId: call.id,
            resultStatus: result.status,
            ...(result.error?.code ? { errorCode: result.error.code } : {}),
            ...(result.error ? { errorMessage: result.error.message } : {}),
            // The stack stays in the trace: the model and the screen get the message only.
            ...(thrownStackOf(result.error) ? { errorStack: thrownStackOf(result.error)! } : {}),
          },
        },
        this.captureContent() ? { input: call.args as JsonValue, output: result as unknown as JsonValue } : undefined,
      );
    };
    const pooled = calls.map((_, index) => index).filter((index) => !asks.has(index));
    const limit = Math.max(1, this.options.toolConcurrency ?? DEFAULT_TOOL_CONCURRENCY);
    let next = 0;
    const worker = async () => {
      while (next < pooled.length) {
        const index = pooled[next]!;
        next += 1;
        await runOne(index);
      }
    };
    await Promise.all([...[...asks].map(runOne), ...Array.from({ length: Math.min(limit, pooled.length) }, worker)]);
    // The instance closed while calls waited (process ending): the approvals stay pending for a restart.
    if (this.closed) return;
    // Results keep call order, whatever order they finished in.
    const toolMessages = calls.map((call, index) =>
      createMessage(
        {
          role: 'tool',
          content: [toToolResultPart({ toolCallId: call.id, toolName: call.name, result: results[index]! })],
        },
        { type: 'tool', toolCallId: call.id, toolName: call.name },
      ),
    );
    options.beforeResults?.();
    this.appendMessages(toolMessages, state.turnId);
    if (checkpoint) store?.clearResults(calls.map((call) => call.id));
  }

  /**
   * A call a kill or crash cut off ran (or was about to) and left no audit row: its row was queued for the step's
   * commit. It is logged now, with the E_TOOL_ABORTED its result gets, in the same commit as that result. What the
   * call was decided by is the policy's verdict for the tool now (the turn's source is not known: none); the
   * duration is unknown (0). Calls with a saved result, or a row already, are not logged again.
   */
  /**
   * A turn whose tool results could not be stored (a full disk at the step's commit) left its calls unanswered, in
   * this process as on disk: they are answered as interrupted before the next turn, as at open, so the model is never
   * sent a call without its result (every later turn failed with 'Tool result is missing' until a restart). A store
   * that still cannot write fails this turn with its own error.
   */
  private answerCallsLeftOpen(): void {
    const unanswered = findUnansweredToolCalls(this.messages);
    if (!unanswered) return;
    this.auditInterruptedCalls(unanswered.calls, unanswered.assistant, undefined);
    const repair = answerUnansweredToolCalls(
      this.messages,
      "The turn ended before this tool call's result was stored.",
    );
    if (repair) this.appendMessages([repair], null);
  }

  private auditInterruptedCalls(
    calls: readonly ToolCall[],
    assistant: Message,
    saved: ReadonlyMap<string, ToolResult> | undefined,
  ): void {
    const { audit, auditLog, toolset } = this.options;
    if (!audit) return;
    const open = calls.filter((call) => !saved?.has(call.id));
    if (open.length === 0) return;
    const turnId = this.options.conversation.turnIdOf(assistant.id) ?? null;
    const logged =
      auditLog?.loggedCalls?.(
        open.map((call) => call.id),
        turnId,
      ) ?? new Set<string>();
    for (const call of open) {
      if (logged.has(call.id)) continue;
      const verdict = toolset.executor.verdictFor(call.name);
      audit({
        at: new Date(assistant.createdAt).getTime(),
        agent: this.agentName,
        instanceKey: this.instanceKey,
        turnId,
        toolCallId: call.id,
        traceId: null,
        toolName: call.name,
        category: verdict?.category ?? null,
        source: null,
        decision: verdict?.decision ?? 'refused',
        rule: verdict?.rule ?? null,
        direct: false,
        approval: null,
        durationMs: 0,
        status: 'error',
        errorCode: 'E_TOOL_ABORTED',
        args: call.args as JsonValue,
        output: null,
      });
    }
  }

  /**
   * What a call needs to ask for approval and be audited. `since`: when the model's message holding the call was
   * made; an approval asked before it is an earlier call's that had the same id (providers reuse `call_0`).
   */
  private permissionScope(since?: number): { approvals?: ApprovalGate; audit?: (entry: AuditEntry) => void } {
    const approvals = this.approvals;
    const gate: ApprovalGate | undefined =
      approvals && since !== undefined
        ? { request: (request) => approvals.request({ ...request, since }) }
        : (approvals ?? undefined);
    return {
      ...(gate ? { approvals: gate } : {}),
      ...(this.options.audit ? { audit: this.options.audit } : {}),
    };
  }

  /** Saves a finished call's result for a resumed turn, in one commit with its audit row (queued by then). */
  private saveCheckpoint(toolCallId: string, turnId: string, result: ToolResult): void {
    const store = this.options.approvalStore;
    if (!store) return;
    try {
      const write = () => store.saveResult(toolCallId, turnId, result);
      if (this.options.auditLog) this.options.auditLog.commitWith(write);
      else write();
    } catch (thrown) {
      this.options.logger?.warn?.(`checkpoint write failed: ${(thrown as Error).message}`);
    }
  }

  /**
   * Runtime notices left for this turn (a new bundle revision) go into the conversation before its event, taken
   * and stored in one transaction; a failure is reported and the turn goes on without them.
   */
  private appendNotices(turnId: string): void {
    try {
      this.options.notices?.take((texts) =>
        this.appendMessages(
          texts.map((text) => createMessage({ role: 'user', content: text }, { type: 'system' })),
          turnId,
        ),
      );
    } catch (thrown) {
      this.options.logger?.warn?.(`runtime notices: ${(thrown as Error).message}`);
    }
  }

  private appendMessages(messages: Message[], turnId: string | null, eventId?: string): void {
    if (messages.length === 0) return;
    // What the model reads back and what is stored agree: neither holds a known secret value.
    const masked = redactKnownSecrets(messages);
    // One commit: the messages, the spans recorded so far and the audit rows of the calls whose results these are.
    this.commit(() => {
      this.options.conversation.appendMany(masked, {
        ...(turnId === null ? {} : { turnId }),
        ...(eventId === undefined ? {} : { eventId }),
      });
      this.spans.writeInto();
    });
    this.messages.push(...masked);
    if (this.history) for (const message of masked) this.history.push(message.data as unknown as AiModelMessage);
  }

  /** A provider's warnings (settings it ignores) are logged the first time each is seen; every model span has them. */
  private warnOnce(model: LanguageModelV4, warnings: readonly string[]): void {
    for (const warning of warnings) {
      if (this.warned.has(warning)) continue;
      this.warned.add(warning);
      (this.options.logger ?? console).warn?.(`Model ${model.provider}:${model.modelId}: ${warning}`);
    }
  }

  /**
   * What a step sends the model: a middleware's messages, or the conversation kept as model messages from step to
   * step (copying and mapping the whole conversation at every step made a step's own cost grow with its length).
   * The model call only reads it; it grows after the call returns.
   */
  private stepMessages(state: StepState): AiModelMessage[] {
    if (state.modelMessages) return modelMessagesOf(state.modelMessages, state.stepIndex);
    this.history ??= this.messages.map((message) => message.data as unknown as AiModelMessage);
    return this.history;
  }

  /** Runs `write` in one transaction, after the audit rows still queued (they commit together or not at all). */
  private commit(write: () => void): void {
    const inTransaction = () => this.options.conversation.inTransaction(write);
    if (this.options.auditLog) this.options.auditLog.commitWith(inTransaction);
    else inTransaction();
  }

  private record(span: SpanRecord, content?: SpanContent): void {
    this.spans.add(span);
    this.options.telemetry?.onSpan(span, content);
  }

  /** True when spans are exported with their message content (opt-in, docs/telemetry.md). */
  private captureContent(): boolean {
    return this.options.telemetry?.captureContent === true;
  }

  private modelContent(input: readonly AiModelMessage[], assistant: Message[]): SpanContent {
    const system = this.options.agent.spec.prompt?.system;
    return {
      ...(system ? { system } : {}),
      // A copy: the kept history grows after the step, and an exporter may read this later.
      input: [...input] as unknown as JsonValue[],
      output: assistant.map((message) => message.data as unknown as JsonValue),
    };
  }

  private notify<K extends keyof TurnObserver>(key: K, event: Parameters<NonNullable<TurnObserver[K]>>[0]): void {
    const handler = this.options.observer?.[key] as ((value: typeof event) => void) | undefined;
    if (!handler) return;
    try {
      const answer: unknown = handler.call(this.options.observer, redactKnownSecrets(event));
      // An async observer that rejects is caught too: an unhandled rejection would end the host process.
      if (isThenable(answer)) answer.then(undefined, () => {});
    } catch {
      // Observers cannot break the loop (STYLE habit 8).
    }
  }
}

/** What is wrong with an event given to enqueue, or null: an object whose `input` is text. */
/** The source a turn's calls are decided by: its event's, with the chain's first source when another agent asked. */
function turnSource(event: AgentEvent): CallSource {
  const source: CallSource = { kind: event.source.kind, name: event.source.name };
  const origin = event.auth?.origin;
  if (origin && (origin.kind !== source.kind || origin.name !== source.name))
    source.origin = { kind: origin.kind, name: origin.name };
  return source;
}

/** The auth context a turn hands to the turns it asks for (spec v1 §12.5.3): the chain's first source and the user. */
function turnAuth(source: CallSource, userId?: string): TurnAuth {
  const auth: TurnAuth = { origin: source.origin ?? { kind: source.kind, name: source.name } };
  if (userId) auth.userId = userId;
  return auth;
}

function wrongEvent(event: unknown): string | null {
  if (typeof event !== 'object' || event === null)
    return `is ${event === null ? 'null' : `a ${typeof event}`}, not an event (userEvent(text) makes one)`;
  const { input, id } = event as { input?: unknown; id?: unknown };
  if (typeof input !== 'string')
    return `has input ${input === undefined ? 'missing' : `of type ${input === null ? 'null' : typeof input}`}: an event's input is the text the agent reads`;
  if (typeof id !== 'string' || id === '') return 'has no id (userEvent(text) makes events with one)';
  return wrongAuth((event as { auth?: unknown }).auth);
}

/** What is wrong with an event's `auth`, or null (absent is fine). */
function wrongAuth(auth: unknown): string | null {
  if (auth === undefined) return null;
  if (typeof auth !== 'object' || auth === null || Array.isArray(auth))
    return 'has an auth that is not an object { origin?, userId? }';
  const { origin, userId } = auth as { origin?: unknown; userId?: unknown };
  if (userId !== undefined && !isUserId(userId)) return `has an auth.userId that is not ${USER_ID_RULE}`;
  if (origin === undefined) return null;
  const { kind, name } = (origin ?? {}) as { kind?: unknown; name?: unknown };
  if (typeof kind !== 'string' || typeof name !== 'string' || kind === '' || name === '')
    return 'has an auth.origin that is not a source { kind, name }';
  return null;
}

/** What is wrong with an approval's answer, or null. */
function wrongApprovalAnswer(answer: unknown): string | null {
  if (typeof answer !== 'object' || answer === null) return 'is not an object { action: "approve" | "deny", ... }';
  const { action, scope, reason, by } = answer as Record<string, unknown>;
  if (action !== 'approve' && action !== 'deny')
    return `has action ${JSON.stringify(action) ?? 'missing'}: it is "approve" or "deny"`;
  if (scope !== undefined && scope !== 'once' && scope !== 'conversation')
    return `has scope ${JSON.stringify(scope)}: it is "once" or "conversation"`;
  if (reason !== undefined && reason !== null && typeof reason !== 'string') return 'has a reason that is not text';
  if (by !== undefined && typeof by !== 'string') return 'has a "by" that is not text';
  return null;
}

/** What a cancelled turn answers when its middleware did not (boundByCancellation). */
function cancelledTurn(state: TurnState): TurnResult {
  return {
    turnId: state.turnId,
    traceId: state.traceId,
    eventId: state.event.id,
    status: 'cancelled',
    text: '',
    steps: 0,
    usage: zeroUsage(),
    reason: 'The turn was cancelled; a turn or step middleware did not answer.',
  };
}

/** What a cancelled step answers when its middleware did not. */
function cancelledStep(): StepOutcome {
  return { text: '', toolCalls: 0, finishReason: 'cancelled', usage: { inputTokens: 0, outputTokens: 0 } };
}
