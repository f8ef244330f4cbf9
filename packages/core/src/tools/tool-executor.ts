import { DEFAULT_ERROR_MESSAGE_LIMIT, toToolError } from '../errors/to-tool-error.ts';
import type { ApprovalResolution } from '../permissions/approvals.ts';
import { PermissionPolicy, type PolicyVerdict } from '../permissions/permission-policy.ts';
import { type CallSource, describeCallSource, type RiskCategory } from '../permissions/permission-types.ts';
import { composeMiddleware } from '../pipeline/compose-middleware.ts';
import { wrongMiddlewareResult } from '../pipeline/middleware-results.ts';
import type { Deadline } from '../timers/deadline-timers.ts';
import type {
  JsonObject,
  JsonValue,
  ToolBundleInfo,
  ToolCall,
  ToolCallMiddleware,
  ToolCallMiddlewareContext,
  ToolResult,
} from '../types.ts';
import { type BoundedChain, boundChain, handlerMayStart, runBoundedChain } from './bounded-middleware-chain.ts';
import type { CallScope, CallState } from './call-scope.ts';
import { invokeHandler, isThenable } from './invoke-handler.ts';
import { parseArguments } from './parse-arguments.ts';
import { describeSchemaErrors } from './schema-validator.ts';
import { toJsonSafe } from './to-json-safe.ts';
import { bindToolCallContext } from './tool-call-layer-context.ts';
import type { ToolCatalog } from './tool-catalog.ts';
import { JobTable } from './tool-jobs.ts';
import { DEFAULT_OUTPUT_LIMIT, type RegisteredTool, type ToolRegistry } from './tool-registry.ts';
import { capOutput, errorResult, isCappedPreview, withinErrorLimit } from './tool-results.ts';

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

/**
 * One call on its way through execute(): what its audit entry says besides its result, and where its answer goes
 * (the promise execute returned, through the executor's conclude). When the answer is its middleware chain's, the
 * record is the chain's bound entry too (boundChain).
 */
class CallRecord implements BoundedChain {
  // Fields are set in the constructor, not declared with initializers: one is made for every call (issue 15).
  declare tool: RegisteredTool | undefined;
  declare verdict: PolicyVerdict | null;
  declare direct: boolean;
  declare approval: ApprovalResolution | null;
  declare args: JsonValue;
  /** Time spent waiting for a person's approval, left out of the call's duration. */
  declare approvalWaitMs: number;
  /** The call went past its checks into the middleware chain. */
  declare ran: boolean;
  /** Set when the call's answer is its middleware chain's, still running, for execute() to bound. */
  declare bound: boolean;
  declare resolve: ((result: ToolResult) => void) | undefined;
  declare chain: CallState | undefined;
  declare settled: boolean;
  declare index: number;
  declare deadline: Deadline | undefined;
  declare onAbort: (() => void) | undefined;
  /** The executor has toolCall middleware: what the call's chain answers is checked to be a result. */
  declare readonly middleware: boolean;
  declare readonly call: ToolCall;
  declare readonly options: { scope: CallScope; timing?: { approvalWaitMs: number } };
  /** performance.now() at the start, when the call is audited. */
  declare readonly started: number;
  /** How long the error message of its result may be. */
  declare readonly limit: number;

  constructor(
    middleware: boolean,
    call: ToolCall,
    options: { scope: CallScope; timing?: { approvalWaitMs: number } },
    started: number,
    limit: number,
  ) {
    this.middleware = middleware;
    this.call = call;
    this.options = options;
    this.started = started;
    this.limit = limit;
    this.tool = undefined;
    this.verdict = null;
    this.direct = false;
    this.approval = null;
    this.args = call.args;
    this.approvalWaitMs = 0;
    this.ran = false;
    this.bound = false;
    this.resolve = undefined;
    this.chain = undefined;
    this.settled = false;
    this.index = -1;
    this.deadline = undefined;
    this.onAbort = undefined;
  }

  // conclude and concludeThrown never throw: the call's promise is always resolved, with a result.
  answered(result: ToolResult): void {
    this.resolve!(conclude(this, result));
  }

  threw(thrown: unknown): void {
    this.resolve!(concludeThrown(this, thrown));
  }
}

/**
 * A result that came out of toolCall middleware, made JSON-safe like a handler's output (BigInt → string, cycles →
 * "[Circular]", …) and capped to the tool's outputLimit (spec §2.4.2): a middleware may return a result of its own,
 * or change the handler's in place, and it is stored, audited and sent to the model. The handler's own output, when
 * a primitive, is passed as the handler's answer left it (made safe and capped already); an object is walked again,
 * since a layer may have changed what is inside. One that is not a plain object (a class instance whose fields are
 * getters on its prototype) is copied to one of the spec's fields: a spread would leave its status out, and JSON
 * would show its private fields instead.
 */
function checkedResult(result: ToolResult, record: CallRecord): ToolResult {
  const status = result.status;
  const plain = Object.getPrototypeOf(result) === Object.prototype;
  if (status === 'ok') {
    const output = result.output;
    if (output === undefined) return plain ? result : { status, output };
    const own = record.chain?.ownOutput === output && (typeof output !== 'object' || output === null);
    const safe = own || isCappedPreview(output) ? output : capOutput(toJsonSafe(output), outputLimitOf(record));
    if (safe === output && plain) return result;
    return plain ? { ...result, output: safe } : { status, output: safe };
  }
  if (status === 'error') {
    const error = toJsonSafe(result.error) as unknown as ToolResult['error'];
    return plain ? { ...result, error } : { status, error };
  }
  // Copied even when plain (a pending result is not the common answer): its handle is read once, here.
  return plain ? { ...result } : { status, handle: result.handle };
}

function outputLimitOf(record: CallRecord): number {
  return record.tool?.outputLimit ?? DEFAULT_OUTPUT_LIMIT;
}

/**
 * A call's answer checked (what a middleware resolved to), capped and audited. It never throws: reading what a
 * middleware answered may (a getter, a Proxy), and that is the call's E_TOOL_MIDDLEWARE.
 */
function conclude(record: CallRecord, answered: ToolResult): ToolResult {
  let outcome = answered;
  try {
    // What a middleware resolved to, when it is not a result (a layer without `return ctx.next()`).
    if (record.ran && record.middleware) {
      const wrong = wrongMiddlewareResult('toolCall', outcome);
      outcome = wrong
        ? errorResult('E_TOOL_MIDDLEWARE', `Tool '${record.call.name}': ${wrong}`)
        : checkedResult(outcome, record);
    }
    outcome = withinErrorLimit(outcome, record.limit);
  } catch (thrown) {
    return concludeThrown(record, thrown);
  }
  return audited(record, outcome);
}

/**
 * Nothing thrown crosses this boundary (spec §2.4.1). The handler's own failures are results already, so a throw
 * once the call ran is a middleware's, when there is one (else the handler's error could not be read). It never
 * throws either, whatever was thrown (toToolError).
 */
function concludeThrown(record: CallRecord, thrown: unknown): ToolResult {
  const fallbackCode = record.ran && record.middleware ? 'E_TOOL_MIDDLEWARE' : 'E_TOOL';
  const outcome: ToolResult = {
    status: 'error',
    error: toToolError(thrown, { limit: record.limit, fallbackCode }),
  };
  return audited(record, withinErrorLimit(outcome, record.limit));
}

/** Tells the audit log about the call, and the caller how long it waited for approval. */
function audited(record: CallRecord, result: ToolResult): ToolResult {
  const { call, options, started } = record;
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
        source: scope.source ? describeCallSource(scope.source) : null,
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
      // Neither what the audit threw nor a logger that throws may lose the call's result.
      try {
        scope.logger.warn?.(`audit write failed: ${(thrown as Error)?.message ?? String(thrown)}`);
      } catch {}
    }
  }
  if (options.timing) options.timing.approvalWaitMs = record.approvalWaitMs;
  return result;
}

/**
 * Where `new Promise(takeResolve)` leaves its resolve function, to be taken at once: a promise's resolvers without a
 * closure made for each call.
 */
let taken: ((result: ToolResult) => void) | undefined;
function takeResolve(resolve: (result: ToolResult) => void): void {
  taken = resolve;
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
  /** Whether calls go through toolCall middleware, whose answer is checked to be a result. */
  private readonly hasMiddleware: boolean;
  private readonly deniedBySource = new Map<string, { version: number; names: ReadonlySet<string> }>();

  constructor(options: ToolExecutorOptions) {
    this.options = options;
    this.registry = options.registry;
    this.permissions = options.permissions ?? new PermissionPolicy();
    this.jobs = options.jobs ?? new JobTable();
    // Without middleware a handler that answers at once is answered without a promise of ours in between.
    const middlewares = options.middlewares ?? [];
    this.hasMiddleware = middlewares.length > 0;
    this.run =
      middlewares.length === 0
        ? (state) => invokeHandler(state, this.jobs, options.bundle)
        : composeMiddleware<CallState, ToolCallMiddlewareContext, ToolResult>({
            middlewares,
            bind: bindToolCallContext,
            // A promise for next(), without an async function around the handler's answer.
            core: (state) => {
              if (!handlerMayStart(state)) {
                return Promise.resolve(
                  errorResult('E_TOOL_ABORTED', `Tool '${state.call.name}' was not started: its call had ended.`),
                );
              }
              // Set only once the chain is bounded (still running when it returned): see runBoundedChain.
              const onHandler = state.onHandler;
              onHandler?.(true);
              const result = invokeHandler(state, this.jobs, options.bundle);
              if (!isThenable(result)) {
                onHandler?.(false);
                return Promise.resolve(result);
              }
              if (onHandler) return (result as Promise<ToolResult>).finally(() => onHandler(false));
              // A bound set up while this runs reads its answer to know when the chain's own time starts again.
              state.handler = result as Promise<ToolResult>;
              return result as Promise<ToolResult>;
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

  /**
   * The catalog without the tools the policy denies to `source` (denied tools are not shown to the model), each
   * remembered in its `denied` — with `hidden`, those visibleItems took out before step middleware — so a call to
   * one says it is denied.
   */
  visibleCatalog(catalog: ToolCatalog, source?: CallSource, hidden: readonly string[] = []): ToolCatalog {
    const denied = this.deniedTools(source);
    if (denied.size === 0) return catalog;
    const shown = catalog.items.some((item) => denied.has(item.name));
    if (!shown && hidden.every((name) => catalog.denied.has(name))) return catalog;
    return catalog.withoutDenied((item) => denied.has(item.name), hidden);
  }

  /**
   * The items step middleware starts from, without the tools the policy denies to `source` (`hidden`): an extension
   * that exposes tools on request (tool-exposure, tool search) sees only what the model may call.
   */
  visibleItems<Item extends { name: string }>(items: Item[], source?: CallSource): { items: Item[]; hidden: string[] } {
    const denied = this.deniedTools(source);
    if (denied.size === 0) return { items, hidden: [] };
    const hidden = items.filter((item) => denied.has(item.name)).map((item) => item.name);
    return hidden.length === 0 ? { items, hidden } : { items: items.filter((item) => !denied.has(item.name)), hidden };
  }

  /** Registered tools the policy denies to `source`, worked out once per registry change (not every step). */
  private deniedTools(source?: CallSource): ReadonlySet<string> {
    const key = source ? describeCallSource(source) : '';
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
  execute(
    call: ToolCall,
    options: { catalog: ToolCatalog; scope: CallScope; timing?: { approvalWaitMs: number } },
  ): Promise<ToolResult> {
    let record: CallRecord | undefined;
    try {
      const tool = this.registry.get(call.name);
      // The clock is read for the audit entry only.
      const started = options.scope.audit ? performance.now() : 0;
      const limit = tool?.errorMessageLimit ?? DEFAULT_ERROR_MESSAGE_LIMIT;
      record = new CallRecord(this.hasMiddleware, call, options, started, limit);
      const pending = this.executeRecorded(call, tool, options, record);
      // conclude never throws: a throw caught here has not been audited.
      if (!isThenable(pending)) return Promise.resolve(conclude(record, pending));
      const entry = record;
      const running = pending as Promise<ToolResult>;
      // A handler's answer without middleware is bounded already (its timeout, the turn's signal): it is concluded
      // as it comes, in the promise its `.then` makes.
      if (!entry.bound) {
        return running.then(
          (result) => conclude(entry, result),
          (thrown) => concludeThrown(entry, thrown),
        );
      }
      // One promise per call: the chain's bound answers through this promise's resolvers (no promise of its own).
      const answer = new Promise<ToolResult>(takeResolve);
      entry.resolve = taken;
      taken = undefined;
      boundChain(running, entry.chain!, entry);
      return answer;
    } catch (thrown) {
      // Before there is a record the call itself could not be read (no call, no scope): rejected, as it always was.
      if (record === undefined) return Promise.reject(thrown);
      return Promise.resolve(concludeThrown(record, thrown));
    }
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
    if (!this.hasMiddleware) return this.run(state);
    // The chain's answer, bounded by execute() when it is still running (it holds the promise the caller gets).
    const answer = this.run(state);
    record.chain = state;
    if (isThenable(answer)) {
      record.bound = true;
      // A next() called once this promise has settled (an async layer that returned at once, its next() queued in a
      // microtask) must not start the tool: handlerMayStart looks, off the path of a layer that calls it in time.
      if (answer instanceof Promise) state.answer = answer;
    } else {
      // A layer that answered without a promise has answered: a next() it calls later must not start the tool.
      state.givenUp = true;
    }
    return answer;
  }

  /** Waits for a person's decision, then runs the call (or answers with why it may not run). */
  private async runAfterApproval(state: CallState, verdict: PolicyVerdict, record: CallRecord): Promise<ToolResult> {
    const { tool, call, scope, args } = state;
    const asked = performance.now();
    const refusal = await this.askApproval({ call, tool, scope, args, verdict, record });
    record.approvalWaitMs = performance.now() - asked;
    if (refusal) return refusal;
    record.ran = true;
    if (!this.hasMiddleware) return this.run(state);
    record.chain = state;
    return runBoundedChain(this.run, state);
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
  return source ? ` for turns from ${describeCallSource(source)}` : '';
}

function describeNearby(name: string, catalog: ToolCatalog): string {
  const prefix = name.split('__')[0] ?? '';
  const similar = catalog.items.filter((item) => prefix !== '' && item.name.startsWith(`${prefix}__`)).slice(0, 5);
  if (similar.length > 0)
    return ` Tools of '${prefix}' in the catalog: ${similar.map((item) => item.name).join(', ')}.`;
  return catalog.size <= 20 && catalog.size > 0 ? ` Available: ${catalog.names().join(', ')}.` : '';
}
