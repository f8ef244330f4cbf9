import type { ErrorCode } from '../errors/error-codes.ts';
import { errorCodes, helpUrlFor } from '../errors/error-codes.ts';
import { GoondanError } from '../errors/goondan-error.ts';
import { DEFAULT_ERROR_MESSAGE_LIMIT, toToolError } from '../errors/to-tool-error.ts';
import { truncateErrorMessage } from '../errors/truncate-error-message.ts';
import type { AgentsRuntime, ToolTraceContext } from '../orchestrator/agents-runtime.ts';
import type { ApprovalGate, ApprovalResolution } from '../permissions/approvals.ts';
import { PermissionPolicy, type PolicyVerdict } from '../permissions/permission-policy.ts';
import type { AuditEntry, CallSource, RiskCategory } from '../permissions/permission-types.ts';
import { composeMiddleware } from '../pipeline/compose-middleware.ts';
import { type Deadline, startDeadline } from '../timers/deadline-timers.ts';
import type {
  JsonObject,
  JsonValue,
  Message,
  ToolBundleInfo,
  ToolCall,
  ToolCallMiddleware,
  ToolCallMiddlewareContext,
  ToolContext,
  ToolJobs,
  ToolResult,
} from '../types.ts';
import { RunningToolCall, runToolHandler, trackUnsettled } from './running-tool-call.ts';
import { describeSchemaErrors } from './schema-validator.ts';
import { toJsonSafe } from './to-json-safe.ts';
import type { ToolCatalog } from './tool-catalog.ts';
import { isPendingSubmission, JobTable } from './tool-jobs.ts';
import type { RegisteredTool, ToolRegistry } from './tool-registry.ts';

export interface ToolExecutorOptions {
  registry: ToolRegistry;
  middlewares?: readonly ToolCallMiddleware[];
  /** The agent's permissions (categories, tools, sources, registry direct calls). Default: the default policy. */
  permissions?: PermissionPolicy;
  jobs?: JobTable;
  /** The bundle the tools run in, given to handlers as ToolContext.bundle. */
  bundle?: ToolBundleInfo;
  /** Tools left unregistered because their backend is missing here (spec.requires); a call to one says why. */
  unavailable?: ReadonlyMap<string, { reason: string; install?: string }>;
}

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

interface CallState {
  tool: RegisteredTool;
  call: ToolCall;
  scope: CallScope;
  args: JsonObject;
  /** Made when a middleware first reads it. */
  metadata?: Record<string, JsonValue>;
}

/** What the audit entry of one call says besides its result. */
interface CallRecord {
  tool: RegisteredTool | undefined;
  verdict: PolicyVerdict | null;
  direct: boolean;
  approval: ApprovalResolution | null;
  args: JsonValue;
  /** Time spent waiting for a person's approval, left out of the call's duration. */
  approvalWaitMs: number;
  /** The call went past its checks into the middleware chain. */
  ran: boolean;
}

/** Messages are cut once, in `execute`, to the tool's limit (spec §2.4.2). */
function errorResult(code: ErrorCode, message: string): ToolResult {
  return {
    status: 'error',
    error: {
      code,
      name: errorCodes[code].name,
      message,
      suggestion: errorCodes[code].suggestion,
      helpUrl: helpUrlFor(code),
    },
  };
}

/**
 * Spec §2.4.2–3: the one place an error message is cut, whoever wrote it (guard, permissions, middleware, handler),
 * to the called tool's errorMessageLimit, or 1000 characters when no such tool is registered.
 */
function withinErrorLimit(result: ToolResult, limit: number): ToolResult {
  const message = result.error?.message;
  if (result.error === undefined || typeof message !== 'string' || message.length <= limit) return result;
  return { ...result, error: { ...result.error, message: truncateErrorMessage(message, limit) } };
}

/**
 * The path of one tool call (DESIGN.md §2): catalog guard → argument validation → toolCall middleware (onion)
 * → handler → ToolResult. Nothing thrown crosses this boundary (spec §2.4.1).
 */
export class ToolExecutor {
  readonly jobs: JobTable;
  readonly permissions: PermissionPolicy;
  private readonly options: ToolExecutorOptions;
  private readonly registry: ToolRegistry;
  private readonly run: (state: CallState) => ToolResult | Promise<ToolResult>;
  private readonly deniedBySource = new Map<string, { version: number; names: ReadonlySet<string> }>();

  constructor(options: ToolExecutorOptions) {
    this.options = options;
    this.registry = options.registry;
    this.permissions = options.permissions ?? new PermissionPolicy();
    this.jobs = options.jobs ?? new JobTable();
    // Without middleware a handler that answers at once is answered without a promise of ours in between.
    const middlewares = options.middlewares ?? [];
    this.run =
      middlewares.length === 0
        ? (state) => this.invokeHandler(state)
        : composeMiddleware<CallState, ToolCallMiddlewareContext, ToolResult>({
            middlewares,
            bind: bindToolCallContext,
            // A promise for next(), without an async function around the handler's answer.
            core: (state) => {
              const result = this.invokeHandler(state);
              return isThenable(result) ? (result as Promise<ToolResult>) : Promise.resolve(result);
            },
          });
  }

  /** The same executor (registry, permissions, jobs) with more toolCall middleware inside the existing chain. */
  withMiddlewares(middlewares: readonly ToolCallMiddleware[]): ToolExecutor {
    if (middlewares.length === 0) return this;
    return new ToolExecutor({
      ...this.options,
      permissions: this.permissions,
      jobs: this.jobs,
      middlewares: [...(this.options.middlewares ?? []), ...middlewares],
    });
  }

  /**
   * A registered tool's category and the policy's verdict for a call of it from `source`, or null when no such
   * tool is registered.
   */
  verdictFor(name: string, source?: CallSource): (PolicyVerdict & { category: RiskCategory }) | null {
    const tool = this.registry.get(name);
    return tool ? { category: tool.category, ...this.permissions.decide(name, tool.category, source) } : null;
  }

  /** The catalog without the tools the policy denies to `source` (denied tools are not shown to the model). */
  visibleCatalog(catalog: ToolCatalog, source?: CallSource): ToolCatalog {
    const denied = this.deniedTools(source);
    if (denied.size === 0 || !catalog.items.some((item) => denied.has(item.name))) return catalog;
    return catalog.withoutDenied((item) => denied.has(item.name));
  }

  /** Registered tools the policy denies to `source`, worked out once per registry change (not every step). */
  private deniedTools(source?: CallSource): ReadonlySet<string> {
    const key = source ? `${source.kind}:${source.name}` : '';
    const cached = this.deniedBySource.get(key);
    if (cached?.version === this.registry.version) return cached.names;
    const names = new Set<string>();
    for (const tool of this.registry.list()) {
      if (this.permissions.decide(tool.item.name, tool.category, source).decision === 'deny') names.add(tool.item.name);
    }
    this.deniedBySource.set(key, { version: this.registry.version, names });
    return names;
  }

  /**
   * Runs one call. `timing`, when given, receives how long the call waited for a person's approval: that wait is
   * not the tool's time, so the audit log's duration and the caller's leave it out.
   */
  async execute(
    call: ToolCall,
    options: { catalog: ToolCatalog; scope: CallScope; timing?: { approvalWaitMs: number } },
  ): Promise<ToolResult> {
    // The clock is read for the audit entry only.
    const started = options.scope.audit ? performance.now() : 0;
    const record: CallRecord = {
      tool: undefined,
      verdict: null,
      direct: false,
      approval: null,
      args: call.args,
      approvalWaitMs: 0,
      ran: false,
    };
    const tool = this.registry.get(call.name);
    const limit = tool?.errorMessageLimit ?? DEFAULT_ERROR_MESSAGE_LIMIT;
    let outcome: ToolResult;
    try {
      // Not an async function of its own: a call answered at once pays one promise (this one), not two.
      const pending = this.executeRecorded(call, tool, options, record);
      outcome = isThenable(pending) ? await pending : pending;
    } catch (thrown) {
      // Nothing thrown crosses this boundary (spec §2.4.1). The handler's own failures are results already, so a
      // throw once the call ran is a middleware's.
      const fallbackCode = record.ran ? 'E_TOOL_MIDDLEWARE' : 'E_TOOL';
      outcome = { status: 'error', error: toToolError(thrown, { limit, fallbackCode }) };
    }
    const result = withinErrorLimit(outcome, limit);
    const { scope } = options;
    if (scope.audit) {
      try {
        scope.audit({
          at: Date.now(),
          agent: scope.agentName,
          instanceKey: scope.instanceKey,
          turnId: scope.turnId,
          toolCallId: call.id,
          traceId: scope.trace?.traceId ?? null,
          toolName: call.name,
          category: record.tool?.category ?? null,
          source: scope.source ? `${scope.source.kind}:${scope.source.name}` : null,
          decision: record.verdict?.decision ?? 'refused',
          rule: record.verdict?.rule ?? null,
          direct: record.direct,
          approval: record.approval
            ? {
                id: record.approval.id,
                outcome: record.approval.outcome,
                scope: record.approval.scope,
                by: record.approval.by,
                reason: record.approval.reason,
              }
            : null,
          durationMs: performance.now() - started - record.approvalWaitMs,
          status: result.status,
          errorCode: result.error?.code ?? null,
          args: record.args,
          output:
            result.status === 'ok'
              ? (result.output ?? null)
              : result.status === 'pending'
                ? { handle: result.handle ?? null }
                : null,
        });
      } catch (thrown) {
        scope.logger.warn?.(`audit write failed: ${(thrown as Error)?.message ?? String(thrown)}`);
      }
    }
    if (options.timing) options.timing.approvalWaitMs = record.approvalWaitMs;
    return result;
  }

  private executeRecorded(
    call: ToolCall,
    tool: RegisteredTool | undefined,
    options: { catalog: ToolCatalog; scope: CallScope },
    record: CallRecord,
  ): ToolResult | Promise<ToolResult> {
    const { catalog, scope } = options;
    // Spec §9.1: the catalog of this Step is the default scope, checked at execution time.
    if (!catalog.has(call.name)) {
      // A tool the permissions hid from this catalog goes on to their check below, which says why it is refused.
      const hiddenByPolicy =
        tool !== undefined &&
        catalog.denied.has(call.name) &&
        this.permissions.decide(call.name, tool.category, scope.source).decision === 'deny';
      const direct = tool !== undefined && this.permissions.allowsDirectCall(call.name);
      if (!direct && !hiddenByPolicy) {
        const missing = tool === undefined ? this.options.unavailable?.get(call.name) : undefined;
        if (missing) {
          const install = missing.install ? ` To install: ${missing.install}.` : '';
          return errorResult(
            'E_TOOL_UNAVAILABLE',
            `Tool '${call.name}' is not offered on this machine: it ${missing.reason}.${install}`,
          );
        }
        return errorResult(
          'E_TOOL_NOT_IN_CATALOG',
          `Tool '${call.name}' is not available in the current Tool Catalog.${describeNearby(call.name, catalog)}`,
        );
      }
      record.direct = direct;
    }
    if (!tool) {
      return errorResult(
        'E_TOOL_NOT_FOUND',
        `Tool '${call.name}' is in the catalog but nothing is registered to run it.`,
      );
    }
    record.tool = tool;
    // Permissions: after the catalog guard, before validation and middleware; a denial never reaches the tool.
    const verdict = this.permissions.decide(call.name, tool.category, scope.source);
    const args = parseArguments(call.args);
    if (typeof args !== 'string') record.args = args;
    if (verdict.decision === 'deny') {
      record.verdict = verdict;
      return deniedResult(call.name, tool, verdict, scope.source);
    }
    if (typeof args === 'string')
      return errorResult('E_TOOL_INVALID_ARGS', `Invalid arguments for ${call.name}: ${args}`);
    let validate: ReturnType<RegisteredTool['validator']>;
    try {
      validate = tool.validator();
    } catch (thrown) {
      // A schema that cannot compile (registered at run time, e.g. by an extension) fails its calls, not the loop.
      return errorResult(
        'E_SCHEMA_INVALID',
        `Parameters schema of ${call.name} does not compile: ${(thrown as Error).message}`,
      );
    }
    if (validate && !validate(args)) {
      const problems = describeSchemaErrors(validate.errors);
      return errorResult('E_TOOL_INVALID_ARGS', `Invalid arguments for ${call.name}: ${problems.join('; ')}`);
    }
    record.verdict = verdict;
    const state: CallState = { tool, call, scope, args };
    if (verdict.decision === 'ask') return this.runAfterApproval(state, verdict, record);
    record.ran = true;
    return this.run(state);
  }

  /** Waits for a person's decision, then runs the call (or answers with why it may not run). */
  private async runAfterApproval(state: CallState, verdict: PolicyVerdict, record: CallRecord): Promise<ToolResult> {
    const { tool, call, scope, args } = state;
    const asked = performance.now();
    const refusal = await this.askApproval({ call, tool, scope, args, verdict, record });
    record.approvalWaitMs = performance.now() - asked;
    if (refusal) return refusal;
    record.ran = true;
    return this.run(state);
  }

  /** Waits for a person's decision; returns the error result when the call may not run. */
  private async askApproval(options: {
    call: ToolCall;
    tool: RegisteredTool;
    scope: CallScope;
    args: JsonObject;
    verdict: PolicyVerdict;
    record: CallRecord;
  }): Promise<ToolResult | null> {
    const { call, tool, scope, args, verdict, record } = options;
    const limit = tool.errorMessageLimit;
    if (!scope.approvals) {
      return errorResult(
        'E_APPROVAL_DENIED',
        `Tool '${call.name}' needs a person's approval (${verdict.rule}), and nobody can approve calls here.`,
      );
    }
    let resolution: ApprovalResolution;
    try {
      resolution = await scope.approvals.request({
        toolName: call.name,
        toolCallId: call.id,
        category: tool.category,
        args,
        rule: verdict.rule,
        source: scope.source ?? { kind: 'system', name: 'unknown' },
        turnId: scope.turnId,
        traceId: scope.trace?.traceId ?? null,
        signal: scope.signal,
      });
    } catch (thrown) {
      return { status: 'error', error: toToolError(thrown, { limit, fallbackCode: 'E_APPROVAL_DENIED' }) };
    }
    record.approval = resolution;
    switch (resolution.outcome) {
      case 'approved':
        return null;
      case 'denied':
        return errorResult(
          'E_APPROVAL_DENIED',
          `The call of '${call.name}' was denied${resolution.by ? ` by ${resolution.by}` : ''}. Reason: ${resolution.reason?.trim() || 'none given'}.`,
        );
      case 'expired':
        return errorResult(
          'E_APPROVAL_TIMEOUT',
          `Nobody answered the approval of '${call.name}' (${resolution.id}) in time; the call did not run.`,
        );
      default:
        return errorResult(
          'E_TOOL_ABORTED',
          `The call of '${call.name}' was cancelled while it waited for approval (${resolution.id}).`,
        );
    }
  }

  /** The handler's answer: at once when it answered at once, else a promise (its timeout and the turn's signal race it). */
  private invokeHandler(state: CallState): ToolResult | Promise<ToolResult> {
    const { tool, call, scope } = state;
    const limit = tool.errorMessageLimit;
    if (scope.signal?.aborted)
      return errorResult('E_TOOL_ABORTED', `Tool '${call.name}' was cancelled before it started.`);
    // The signal and the jobs object are made when the handler first reads them: an AbortController costs more
    // than the rest of the call, and most handlers never look at it. Own enumerable getters, so a spread copy of
    // the context still has both.
    const lazy = new LazyCallParts(this.jobs, call.name, limit);
    const context: { -readonly [K in keyof ToolContext]: ToolContext[K] } = {
      agentName: scope.agentName,
      instanceKey: scope.instanceKey,
      turnId: scope.turnId,
      toolCallId: call.id,
      message: scope.message,
      workdir: scope.workdir,
      logger: scope.logger,
      get signal() {
        return lazy.signal();
      },
      get jobs() {
        return lazy.jobs();
      },
      config: tool.config,
    };
    // Optional fields are present only when set (spec §2.5.3 lists exactly what a context holds).
    if (scope.trace) context.trace = scope.trace;
    if (scope.agents) context.agents = scope.agents;
    if (this.options.bundle) context.bundle = this.options.bundle;
    if (scope.source) context.source = scope.source;
    const running = new RunningToolCall(call.name, call.id);
    let output: unknown;
    try {
      output = runToolHandler(running, () => tool.handler(context, state.args));
    } catch (thrown) {
      running.finish();
      lazy.abort('failed');
      return { status: 'error', error: toToolError(thrown, { limit }) };
    }
    if (!isThenable(output)) {
      running.finish();
      return outputResult(output, tool, call.name);
    }
    // An async handler that did its work without waiting (its promise is fulfilled already) is answered like a
    // sync one: there is nothing left to race.
    if (output instanceof Promise && Bun.peek.status(output) === 'fulfilled') {
      running.finish();
      return outputResult(Bun.peek(output), tool, call.name);
    }
    return settleHandler({ work: output, lazy, tool, call, scope, running });
  }
}

/**
 * Waits for a handler that answered with a promise. The timeout, the turn's signal and errors escaping the handler
 * (its timer threw, see guardProcessErrors) answer at once and abort the handler's signal; they are armed only for a
 * handler still running one microtask later, so one that answered at once touches no timer, listener or set.
 */
function settleHandler(options: {
  work: PromiseLike<unknown>;
  lazy: LazyCallParts;
  tool: RegisteredTool;
  call: ToolCall;
  scope: CallScope;
  running: RunningToolCall;
}): Promise<ToolResult> {
  const { work, lazy, tool, call, scope, running } = options;
  return new Promise((resolve) => {
    const parent = scope.signal;
    let settled = false;
    let deadline: Deadline | undefined;
    let onAbort: (() => void) | undefined;
    const finish = (result: ToolResult) => {
      if (settled) return;
      settled = true;
      deadline?.cancel();
      if (onAbort) parent?.removeEventListener('abort', onAbort);
      running.finish();
      resolve(result);
    };
    // The handler's signal says why: the interruption itself, or 'failed' when the handler's own promise rejected.
    const fail = (thrown: unknown, abortReason: unknown = thrown) => {
      if (settled) return;
      lazy.abort(abortReason);
      finish({ status: 'error', error: toToolError(thrown, { limit: tool.errorMessageLimit }) });
    };
    work.then(
      // A late answer (after a timeout or cancellation) is not read: reading it runs the tool's code again.
      (value) => {
        if (!settled) finish(outputResult(value, tool, call.name));
      },
      (thrown) => fail(thrown, 'failed'),
    );
    queueMicrotask(() => {
      // A handler whose promise settled in the meantime is answered by the reaction above, next in the queue.
      if (settled || settledAlready(work)) return;
      trackUnsettled(running);
      running.onEscape((thrown) => {
        const reason = thrown instanceof Error ? thrown.message : String(thrown);
        fail(
          new GoondanError(
            'E_TOOL',
            `Tool '${call.name}' failed outside its awaited work (a timer or a promise it did not await): ${reason}`,
          ),
        );
      });
      // One shared timer per timeout length (deadline-timers.ts), not a setTimeout/clearTimeout pair per call.
      deadline = startDeadline(tool.timeoutMs, () =>
        fail(new GoondanError('E_TOOL_TIMEOUT', `Tool '${call.name}' did not finish within ${tool.timeoutMs} ms.`)),
      );
      onAbort = () => fail(new GoondanError('E_TOOL_ABORTED', `Tool '${call.name}' was cancelled.`));
      if (parent?.aborted) onAbort();
      else parent?.addEventListener('abort', onAbort, { once: true });
    });
  });
}

/** A handler's output as a result. Reading it runs the tool's own code (getters, toJSON, Proxy traps): a throw there is the tool's error. */
function outputResult(output: unknown, tool: RegisteredTool, name: string): ToolResult {
  try {
    if (isPendingSubmission(output)) return { status: 'pending', handle: output.handle };
    return { status: 'ok', output: capOutput(toJsonSafe(output), tool.outputLimit) };
  } catch (thrown) {
    const reason = (thrown as Error)?.message ?? String(thrown);
    return errorResult('E_TOOL', `Tool '${name}' returned an output that could not be serialized: ${reason}`);
  }
}

/** The parts of a ToolContext made on first use; `abort` reaches the handler only if it took the signal. */
class LazyCallParts {
  private controller: AbortController | undefined;
  private toolJobs: ToolJobs | undefined;

  constructor(
    private readonly table: JobTable,
    private readonly toolName: string,
    private readonly limit: number,
  ) {}

  signal(): AbortSignal {
    this.controller ??= new AbortController();
    return this.controller.signal;
  }

  jobs(): ToolJobs {
    this.toolJobs ??= this.table.forTool(this.toolName, this.limit);
    return this.toolJobs;
  }

  abort(reason: unknown): void {
    if (this.controller && !this.controller.signal.aborted) this.controller.abort(reason);
  }
}

/** A toolCall middleware's view of the call: accessors on the prototype, so making one per layer is cheap. */
class ToolCallLayerContext implements ToolCallMiddlewareContext {
  constructor(
    private readonly state: CallState,
    readonly next: () => Promise<ToolResult>,
  ) {}

  get toolName(): string {
    return this.state.call.name;
  }

  get toolCallId(): string {
    return this.state.call.id;
  }

  get message(): Message {
    return this.state.scope.message;
  }

  get args(): JsonObject {
    return this.state.args;
  }

  set args(value: JsonObject) {
    this.state.args = value;
  }

  get metadata(): Record<string, JsonValue> {
    this.state.metadata ??= {};
    return this.state.metadata;
  }

  set metadata(value: Record<string, JsonValue>) {
    this.state.metadata = value;
  }
}

function bindToolCallContext(state: CallState, next: () => Promise<ToolResult>): ToolCallMiddlewareContext {
  return new ToolCallLayerContext(state, next);
}

/** A native promise that is no longer pending (Bun.peek reads its state without waiting); false for other thenables. */
function settledAlready(value: PromiseLike<unknown>): value is Promise<unknown> {
  return value instanceof Promise && Bun.peek.status(value) !== 'pending';
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

function parseArguments(raw: JsonObject | string | unknown): JsonObject | string {
  let value: unknown = raw;
  if (typeof raw === 'string') {
    if (raw.trim() === '') return {};
    try {
      value = JSON.parse(raw);
    } catch (thrown) {
      return `arguments are not valid JSON (${(thrown as Error).message})`;
    }
  }
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    return `arguments must be a JSON object, got ${Array.isArray(value) ? 'array' : typeof value}`;
  return value as JsonObject;
}

/** A successful output larger than the tool's limit is replaced by a preview that says so. */
function capOutput(output: JsonValue, limit: number): JsonValue {
  if (typeof output !== 'object' || output === null) {
    if (typeof output !== 'string' || output.length <= limit) return output;
  }
  const serialized = JSON.stringify(output);
  if (serialized.length <= limit) return output;
  return {
    truncated: true,
    originalChars: serialized.length,
    limitChars: limit,
    preview: serialized.slice(0, limit),
    note: `Output was ${serialized.length} characters as JSON; only the first ${limit} are shown. Ask for less.`,
  };
}

function deniedResult(
  name: string,
  tool: RegisteredTool,
  verdict: PolicyVerdict,
  source: CallSource | undefined,
): ToolResult {
  return errorResult(
    'E_POLICY_DENIED',
    `Tool '${name}' (${tool.category}) is denied by the agent's permissions (${verdict.rule}${describeSource(source)}).`,
  );
}

function describeSource(source: CallSource | undefined): string {
  return source ? ` for turns from ${source.kind}:${source.name}` : '';
}

function describeNearby(name: string, catalog: ToolCatalog): string {
  const prefix = name.split('__')[0] ?? '';
  const similar = catalog.items.filter((item) => prefix !== '' && item.name.startsWith(`${prefix}__`)).slice(0, 5);
  if (similar.length > 0)
    return ` Tools of '${prefix}' in the catalog: ${similar.map((item) => item.name).join(', ')}.`;
  return catalog.size <= 20 && catalog.size > 0 ? ` Available: ${catalog.names().join(', ')}.` : '';
}
