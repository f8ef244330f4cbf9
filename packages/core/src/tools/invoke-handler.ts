import { GoondanError } from '../errors/goondan-error.ts';
import { toToolError } from '../errors/to-tool-error.ts';
import type { ToolTraceContext } from '../orchestrator/agents-runtime.ts';
import { type Deadline, startDeadline } from '../timers/deadline-timers.ts';
import type { ToolBundleInfo, ToolContext, ToolJobs, ToolResult } from '../types.ts';
import type { CallScope, CallState } from './call-scope.ts';
import { RunningToolCall, runToolHandler, trackUnsettled } from './running-tool-call.ts';
import type { JobTable } from './tool-jobs.ts';
import { errorResult, outputResult } from './tool-results.ts';

/** The handler's answer: at once when it answered at once, else a promise (its timeout and the turn's signal race it). */
export function invokeHandler(
  state: CallState,
  jobs: JobTable,
  bundle: ToolBundleInfo | undefined,
): ToolResult | Promise<ToolResult> {
  const { tool, call, scope } = state;
  const limit = tool.errorMessageLimit;
  if (scope.signal?.aborted)
    return errorResult('E_TOOL_ABORTED', `Tool '${call.name}' was cancelled before it started.`);
  const lazy = new LazyCallParts(jobs, call.name, limit, scope.trace);
  const context = new HandlerContext(scope, call.id, tool.config, lazy);
  // Optional fields are present only when set (spec §2.5.3 lists exactly what a context holds).
  if (scope.trace) context.trace = scope.trace;
  if (scope.agents) context.agents = scope.agents;
  if (bundle) context.bundle = bundle;
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
    return ownResult(state, output);
  }
  // An async handler that did its work without waiting (its promise is fulfilled already) is answered like a
  // sync one: there is nothing left to race.
  if (output instanceof Promise && Bun.peek.status(output) === 'fulfilled') {
    running.finish();
    return ownResult(state, Bun.peek(output));
  }
  return settleHandler({ work: output, lazy, state, running });
}

/** The handler's output as its result, remembered on the call (CallState.ownOutput) as the output already capped. */
function ownResult(state: CallState, output: unknown): ToolResult {
  const result = outputResult(output, state.tool, state.call.name);
  state.ownOutput = result.output;
  return result;
}

/**
 * Waits for a handler that answered with a promise. The timeout, the turn's signal and errors escaping the handler
 * (its timer threw, see guardProcessErrors) answer at once and abort the handler's signal; they are armed only for a
 * handler still running one microtask later, so one that answered at once touches no timer, listener or set.
 */
function settleHandler(options: {
  work: PromiseLike<unknown>;
  lazy: LazyCallParts;
  state: CallState;
  running: RunningToolCall;
}): Promise<ToolResult> {
  const { work, lazy, state, running } = options;
  const { tool, call, scope } = state;
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
        if (!settled) finish(ownResult(state, value));
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

const LAZY = Symbol('goondan.lazyCallParts');

/**
 * A handler's ToolContext. Its fields are own properties; `signal` and `jobs` are getters on the prototype, made on
 * first read: an AbortController costs more than the rest of the call, and most handlers never look at it. (An
 * object literal with own getters cost ~100 ns per call to build.) A copy made by spreading has the fields but not
 * `signal` and `jobs`; `Object.create(ctx)` or passing `ctx` itself keeps them (docs/writing-a-tool.md).
 */
class HandlerContext {
  agentName: string;
  instanceKey: string;
  turnId: string;
  toolCallId: string;
  message: ToolContext['message'];
  workdir: string;
  logger: Console;
  config: ToolContext['config'];
  declare trace?: ToolContext['trace'];
  declare agents?: ToolContext['agents'];
  declare bundle?: ToolContext['bundle'];
  declare source?: ToolContext['source'];
  /** Symbol-keyed: not in Object.keys, JSON or a listing of the context's fields. */
  readonly [LAZY]: LazyCallParts;

  constructor(scope: CallScope, toolCallId: string, config: ToolContext['config'], lazy: LazyCallParts) {
    this.agentName = scope.agentName;
    this.instanceKey = scope.instanceKey;
    this.turnId = scope.turnId;
    this.toolCallId = toolCallId;
    this.message = scope.message;
    this.workdir = scope.workdir;
    this.logger = scope.logger;
    this.config = config;
    this[LAZY] = lazy;
  }

  get signal(): AbortSignal {
    return this[LAZY].signal();
  }

  get jobs(): ToolJobs {
    return this[LAZY].jobs();
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
    /** The call's place in its turn: a job it submits keeps the turn's auth context. */
    private readonly trace: ToolTraceContext | undefined,
  ) {}

  signal(): AbortSignal {
    this.controller ??= new AbortController();
    return this.controller.signal;
  }

  jobs(): ToolJobs {
    this.toolJobs ??= this.table.forTool(this.toolName, this.limit, this.trace?.auth);
    return this.toolJobs;
  }

  abort(reason: unknown): void {
    if (this.controller && !this.controller.signal.aborted) this.controller.abort(reason);
  }
}

/** A native promise that is no longer pending (Bun.peek reads its state without waiting); false for other thenables. */
function settledAlready(value: PromiseLike<unknown>): value is Promise<unknown> {
  return value instanceof Promise && Bun.peek.status(value) !== 'pending';
}

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
