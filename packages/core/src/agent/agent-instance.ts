import type { LanguageModelV4 } from '@ai-sdk/provider';
import { type ModelMessage as AiModelMessage, streamText } from 'ai';
import type { AgentResource } from '../config/resources.ts';
import { GoondanError } from '../errors/goondan-error.ts';
import { toToolError } from '../errors/to-tool-error.ts';
import type { ModelCallSettings } from '../models/model-call-settings.ts';
import { toToolCall } from '../models/to-tool-call.ts';
import type { AgentsRuntime } from '../orchestrator/agents-runtime.ts';
import { composeMiddleware } from '../pipeline/compose-middleware.ts';
import type { ConversationStore } from '../store/conversation-store.ts';
import { newSpanId, newTraceId } from '../store/trace-ids.ts';
import type { SpanRecord, TraceStore } from '../store/trace-store.ts';
import type { AgentToolset } from '../tools/agent-toolset.ts';
import type { ToolCatalog } from '../tools/tool-catalog.ts';
import type { JsonValue, Message, MessageSource, ModelMessage, ToolCall, ToolResult } from '../types.ts';
import { type AgentEvent, newId } from './agent-event.ts';
import { createMessage, toolCallsOf } from './create-message.ts';
import { answerUnansweredToolCalls } from './repair-conversation.ts';
import { toModelTools } from './to-model-tools.ts';
import { toToolResultPart } from './to-tool-result-part.ts';
import type {
  StepMiddleware,
  StepMiddlewareContext,
  StepOutcome,
  TurnMiddleware,
  TurnMiddlewareContext,
  TurnObserver,
  TurnResult,
} from './turn-types.ts';

export const DEFAULT_MAX_STEPS_PER_TURN = 16;
export const DEFAULT_TOOL_CONCURRENCY = 4;
/** Traces kept per instance; older ones are pruned every 100 turns so the database stays bounded. */
export const MAX_STORED_TRACES = 1000;

export interface AgentInstanceOptions {
  agent: AgentResource;
  instanceKey: string;
  toolset: AgentToolset;
  model: LanguageModelV4;
  callSettings?: ModelCallSettings;
  conversation: ConversationStore;
  traces: TraceStore;
  workdir: string;
  logger?: Console;
  observer?: TurnObserver;
  /** False for tool-only front ends (gdn tools call, mcp serve): finished jobs are polled, no turn starts. */
  deliverJobCompletions?: boolean;
  /** Told when the conversation is reset and when the instance closes (extensions). */
  onReset?: readonly (() => void)[];
  onClose?: readonly (() => void | Promise<void>)[];
  turnMiddlewares?: readonly TurnMiddleware[];
  stepMiddlewares?: readonly StepMiddleware[];
  maxStepsPerTurn?: number;
  toolConcurrency?: number;
  /** Reaches tools as ctx.agents (set by the agent process under an Orchestrator). */
  agents?: AgentsRuntime;
}

interface TurnState {
  event: AgentEvent;
  turnId: string;
  traceId: string;
  turnSpanId: string;
  signal: AbortSignal;
  metadata: Record<string, JsonValue>;
}

interface StepState extends TurnState {
  stepIndex: number;
  /** Set by previewCatalog: run step middleware, then stop before the model. */
  preview?: (catalog: ToolCatalog) => void;
  toolCatalog: StepMiddlewareContext['toolCatalog'];
  modelMessages: Message[];
  stepMetadata: Record<string, JsonValue>;
}

const zeroUsage = () => ({ inputTokens: 0, outputTokens: 0 });

/**
 * One agent instance: a FIFO of AgentEvents, one Turn at a time; each Turn runs Steps (catalog → step
 * middleware → model → tool calls through the executor → results appended) until the model stops calling tools
 * or the step cap is reached. The conversation is event-sourced on disk; every append is durable at once.
 */
export class AgentInstance {
  readonly agentName: string;
  readonly instanceKey: string;
  private readonly messages: Message[];
  private readonly runTurnPipeline: (state: TurnState) => Promise<TurnResult>;
  private readonly runStepPipeline: (state: StepState) => Promise<StepOutcome>;
  private queue: Promise<unknown> = Promise.resolve();
  /** Spans of the running step, written together when it ends (one commit per step, not per span). */
  private spanBuffer: SpanRecord[] = [];
  private turnsServed = 0;
  private waiting = 0;
  private closed = false;

  constructor(private readonly options: AgentInstanceOptions) {
    this.agentName = options.agent.metadata.name;
    this.instanceKey = options.instanceKey;
    this.messages = options.conversation.load();
    // A crash or kill between a tool call and its result leaves a call unanswered; answer it before going on.
    const repair = answerUnansweredToolCalls(this.messages, 'The agent stopped before this tool call finished.');
    if (repair) this.appendMessages([repair], null);
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
      core: (state) => this.runSteps(state),
    });
    this.runStepPipeline = composeMiddleware<StepState, StepMiddlewareContext, StepOutcome>({
      middlewares: options.stepMiddlewares ?? [],
      bind: (state, next) => ({
        agentName: this.agentName,
        instanceKey: this.instanceKey,
        turnId: state.turnId,
        stepIndex: state.stepIndex,
        get messages() {
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
      core: (state) => this.runStep(state),
    });
    // Spec §10.2 / decision 5: a finished pending job reaches the agent as an event (a turn starts if idle).
    options.toolset.executor.jobs.onComplete(({ handle, toolName, result }) => {
      if (this.closed || options.deliverJobCompletions === false) return;
      void this.enqueue({
        id: newId('evt'),
        type: 'tool.job.completed',
        input: `Tool job ${handle} (${toolName}) finished: ${JSON.stringify(result)}`,
        source: { kind: 'system', name: 'jobs' },
        data: { handle, toolName, result: result as unknown as JsonValue },
        createdAt: new Date().toISOString(),
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
  async previewCatalog(): Promise<ToolCatalog> {
    let seen: ToolCatalog | undefined;
    await this.previewStep((catalog) => {
      seen = catalog;
    });
    this.spanBuffer = [];
    return seen ?? this.options.toolset.catalogBuilder.build();
  }

  /** Runs step middleware up to the model call; a middleware that throws becomes E_TURN_FAILED naming the cause. */
  private async previewStep(preview: (catalog: ToolCatalog) => void): Promise<void> {
    try {
      await this.runStepPipeline({
        event: {
          id: newId('evt'),
          type: 'catalog.preview',
          input: '',
          source: { kind: 'system', name: 'preview' },
          createdAt: new Date().toISOString(),
        },
        turnId: newId('turn'),
        traceId: newTraceId(),
        turnSpanId: newSpanId(),
        signal: new AbortController().signal,
        metadata: {},
        stepIndex: this.messages.length === 0 ? 0 : 1,
        toolCatalog: this.options.toolset.catalogBuilder.initialItems(),
        modelMessages: [...this.messages],
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
  async callTool(call: ToolCall, options: { signal?: AbortSignal; workdir?: string } = {}): Promise<ToolResult> {
    const catalog = await this.previewCatalog();
    const message = createMessage(
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.args }],
      },
      { type: 'assistant' },
    );
    return this.options.toolset.executor.execute(call, {
      catalog,
      scope: {
        agentName: this.agentName,
        instanceKey: this.instanceKey,
        turnId: newId('turn'),
        message,
        workdir: options.workdir ?? this.options.workdir,
        logger: this.options.logger ?? console,
        signal: options.signal,
        ...(this.options.agents ? { agents: this.options.agents } : {}),
      },
    });
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
    this.waiting += 1;
    const run = this.queue.then(() => {
      this.waiting -= 1;
      return this.runTurn(event, options.signal ?? new AbortController().signal);
    });
    this.queue = run.catch(() => {});
    return run;
  }

  /** Starts the conversation afresh (an event like any other: `truncate`). */
  reset(): void {
    this.options.conversation.truncate();
    this.messages.length = 0;
    for (const listener of this.options.onReset ?? []) {
      try {
        listener();
      } catch (thrown) {
        this.options.logger?.warn?.(`reset listener failed: ${(thrown as Error).message}`);
      }
    }
  }

  /** Stops jobs and lets extensions clean up (close MCP connections, timers). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.options.toolset.executor.jobs.abortAll();
    for (const listener of this.options.onClose ?? []) {
      await Promise.resolve()
        .then(listener)
        .catch((thrown) => this.options.logger?.warn?.(`close listener failed: ${(thrown as Error)?.message}`));
    }
  }

  private async runTurn(event: AgentEvent, signal: AbortSignal): Promise<TurnResult> {
    const turnId = newId('turn');
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
      attributes: { agent: this.agentName, instance: this.instanceKey, turnId, eventType: event.type, ...attributes },
    });
    this.record(span('running', {}));
    this.flushSpans();
    this.notify('onTurnStart', { turnId, traceId, event });
    let result: TurnResult;
    try {
      result = await this.runTurnPipeline({ event, turnId, traceId, turnSpanId, signal, metadata: {} });
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
    this.record(
      span(result.status === 'cancelled' ? 'cancelled' : result.status === 'error' ? 'error' : 'ok', {
        status: result.status,
        steps: result.steps,
        inputTokens: result.usage.inputTokens,
        outputTokens: result.usage.outputTokens,
        ...(result.error ? { errorCode: result.error.code } : {}),
      }),
    );
    this.flushSpans();
    this.turnsServed += 1;
    if (this.turnsServed % 100 === 0) this.pruneTraces();
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
    this.appendMessages([createMessage({ role: 'user', content: event.input }, source)], turnId);
    const usage = zeroUsage();
    const maxSteps = this.options.maxStepsPerTurn ?? DEFAULT_MAX_STEPS_PER_TURN;
    const base = { turnId, traceId, eventId: event.id, usage };
    let text = '';
    for (let stepIndex = 0; ; stepIndex += 1) {
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
      const outcome = await this.runStepPipeline({
        ...state,
        stepIndex,
        toolCatalog: this.options.toolset.catalogBuilder.initialItems(),
        modelMessages: [...this.messages],
        stepMetadata: {},
      });
      usage.inputTokens += outcome.usage.inputTokens;
      usage.outputTokens += outcome.usage.outputTokens;
      text = outcome.text;
      this.notify('onStepEnd', { turnId, stepIndex, outcome });
      if (signal.aborted)
        return { ...base, status: 'cancelled', text, steps: stepIndex + 1, reason: 'The turn was cancelled.' };
      if (outcome.error) return { ...base, status: 'error', text, steps: stepIndex + 1, error: outcome.error };
      if (outcome.toolCalls === 0)
        return { ...base, status: 'completed', text, steps: stepIndex + 1, reason: outcome.finishReason };
    }
  }

  /** The core of one Step, after step middleware has shaped `toolCatalog`. */
  private async runStep(state: StepState): Promise<StepOutcome> {
    const { toolset, model } = this.options;
    const catalog = toolset.catalogBuilder.finalize(state.toolCatalog);
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
    try {
      const result = streamText({
        model,
        ...(this.options.agent.spec.prompt?.system ? { instructions: this.options.agent.spec.prompt.system } : {}),
        messages: state.modelMessages.map((message) => message.data as unknown as AiModelMessage),
        tools: toModelTools(catalog.items),
        abortSignal: state.signal,
        // Errors are read from the stream below; the SDK's default handler would print them to the console.
        onError: () => {},
        ...this.options.callSettings,
      });
      let streamError: unknown;
      for await (const part of result.fullStream) {
        if (part.type === 'text-delta') this.notify('onTextDelta', part.text);
        else if (part.type === 'error') streamError = part.error;
      }
      if (streamError !== undefined) throw streamError;
      if (state.signal.aborted) return { ...outcome, finishReason: 'cancelled' };
      const [response, toolCalls, usage, finishReason, text] = await Promise.all([
        result.response,
        result.toolCalls,
        result.usage,
        result.finishReason,
        result.text,
      ]);
      outcome.text = text;
      outcome.finishReason = finishReason;
      outcome.usage = { inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0 };
      calls = toolCalls.map(toToolCall);
      outcome.toolCalls = calls.length;
      assistant = response.messages
        .filter((message) => message.role === 'assistant')
        .map((message) => createMessage(message as unknown as ModelMessage, { type: 'assistant', stepId: stepSpanId }));
    } catch (thrown) {
      if (state.signal.aborted) return { ...outcome, finishReason: 'cancelled' };
      const error = toToolError(thrown, { fallbackCode: 'E_MODEL_CALL_FAILED' });
      outcome.error = { code: error.code!, message: error.message };
    }
    this.record({
      traceId: state.traceId,
      spanId: modelSpanId,
      parentSpanId: stepSpanId,
      kind: 'model',
      name: `model ${model.provider}:${model.modelId}`,
      startedAt: modelStarted,
      endedAt: Date.now(),
      status: outcome.error ? 'error' : 'ok',
      attributes: {
        inputTokens: outcome.usage.inputTokens,
        outputTokens: outcome.usage.outputTokens,
        finishReason: outcome.finishReason,
        toolCalls: outcome.toolCalls,
        tools: catalog.size,
        ...(outcome.error ? { errorCode: outcome.error.code, errorMessage: outcome.error.message } : {}),
      },
    });
    if (!outcome.error) {
      this.appendMessages(assistant, state.turnId);
      if (calls.length > 0) await this.executeToolCalls({ state, calls, assistant, catalog, stepSpanId });
    }
    this.record({
      traceId: state.traceId,
      spanId: stepSpanId,
      parentSpanId: state.turnSpanId,
      kind: 'step',
      name: `step ${state.stepIndex}`,
      startedAt: stepStarted,
      endedAt: Date.now(),
      status: outcome.error ? 'error' : state.signal.aborted ? 'cancelled' : 'ok',
      attributes: { stepIndex: state.stepIndex, tools: catalog.size, toolCalls: outcome.toolCalls },
    });
    this.flushSpans();
    return outcome;
  }

  private async executeToolCalls(options: {
    state: StepState;
    calls: ToolCall[];
    assistant: Message[];
    catalog: ReturnType<AgentToolset['catalogBuilder']['finalize']>;
    stepSpanId: string;
  }): Promise<void> {
    const { state, calls, assistant, catalog, stepSpanId } = options;
    // The assistant message that holds each call (spec §2.5.4), found once per step.
    const holders = new Map<string, Message>();
    for (const message of assistant) for (const part of toolCallsOf(message)) holders.set(part.toolCallId, message);
    const holder = (id: string) => holders.get(id) ?? assistant[0]!;
    const limit = Math.max(1, this.options.toolConcurrency ?? DEFAULT_TOOL_CONCURRENCY);
    const results: ToolResult[] = new Array(calls.length);
    let nextIndex = 0;
    const worker = async () => {
      while (nextIndex < calls.length) {
        const index = nextIndex;
        nextIndex += 1;
        const call = calls[index]!;
        const started = Date.now();
        // Made before the call so the tool can hand it on (an inter-agent request's callee turn nests under it).
        const toolSpanId = newSpanId();
        this.notify('onToolCallStart', { toolCallId: call.id, toolName: call.name, args: call.args });
        const result = await this.options.toolset.executor.execute(call, {
          catalog,
          scope: {
            agentName: this.agentName,
            instanceKey: this.instanceKey,
            turnId: state.turnId,
            message: holder(call.id),
            workdir: this.options.workdir,
            logger: this.options.logger ?? console,
            signal: state.signal,
            trace: { traceId: state.traceId, spanId: toolSpanId },
            ...(this.options.agents ? { agents: this.options.agents } : {}),
          },
        });
        results[index] = result;
        const durationMs = Date.now() - started;
        this.notify('onToolCallEnd', { toolCallId: call.id, toolName: call.name, result, durationMs });
        this.record({
          traceId: state.traceId,
          spanId: toolSpanId,
          parentSpanId: stepSpanId,
          kind: 'tool',
          name: `tool ${call.name}`,
          startedAt: started,
          endedAt: started + durationMs,
          status: result.status === 'error' ? 'error' : 'ok',
          attributes: {
            toolName: call.name,
            toolCallId: call.id,
            resultStatus: result.status,
            ...(result.error?.code ? { errorCode: result.error.code } : {}),
          },
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(limit, calls.length) }, worker));
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
    this.appendMessages(toolMessages, state.turnId);
  }

  private appendMessages(messages: Message[], turnId: string | null): void {
    if (messages.length === 0) return;
    this.options.conversation.appendMany(messages, turnId === null ? {} : { turnId });
    this.messages.push(...messages);
  }

  private record(span: SpanRecord): void {
    this.spanBuffer.push(span);
  }

  /** Traces are observers: a failed write is reported, never allowed to break the turn. */
  private flushSpans(): void {
    const spans = this.spanBuffer;
    this.spanBuffer = [];
    try {
      this.options.traces.recordSpans(spans);
    } catch (thrown) {
      this.options.logger?.warn?.(`trace write failed: ${(thrown as Error).message}`);
    }
  }

  private pruneTraces(): void {
    try {
      this.options.traces.pruneTraces(MAX_STORED_TRACES);
    } catch (thrown) {
      this.options.logger?.warn?.(`trace pruning failed: ${(thrown as Error).message}`);
    }
  }

  private notify<K extends keyof TurnObserver>(key: K, event: Parameters<NonNullable<TurnObserver[K]>>[0]): void {
    const handler = this.options.observer?.[key] as ((value: typeof event) => void) | undefined;
    if (!handler) return;
    try {
      handler.call(this.options.observer, event);
    } catch {
      // Observers cannot break the loop (STYLE habit 8).
    }
  }
}
