import type { ErrorCode } from '../errors/error-codes.ts';
import { errorCodes, helpUrlFor } from '../errors/error-codes.ts';
import { GoondanError } from '../errors/goondan-error.ts';
import { toToolError, truncateErrorMessage } from '../errors/to-tool-error.ts';
import type { AgentsRuntime, ToolTraceContext } from '../orchestrator/agents-runtime.ts';
import { composeMiddleware } from '../pipeline/compose-middleware.ts';
import type {
  JsonObject,
  JsonValue,
  Message,
  ToolCall,
  ToolCallMiddleware,
  ToolCallMiddlewareContext,
  ToolContext,
  ToolResult,
} from '../types.ts';
import { describeSchemaErrors } from './schema-validator.ts';
import { toJsonSafe } from './to-json-safe.ts';
import type { ToolCatalog } from './tool-catalog.ts';
import { isPendingSubmission, JobTable } from './tool-jobs.ts';
import type { RegisteredTool, ToolRegistry } from './tool-registry.ts';

/** Security policy for calls outside the catalog (spec §2.3.3: only by explicit policy). */
export interface ExecutionPolicy {
  allowRegistryDirectCalls?: boolean;
}

export interface ToolExecutorOptions {
  registry: ToolRegistry;
  middlewares?: readonly ToolCallMiddleware[];
  policy?: ExecutionPolicy;
  jobs?: JobTable;
  /** Told about each registry direct call, for auditing. */
  onDirectCall?: (call: { toolName: string; toolCallId: string }) => void;
}

/** Everything about the calling agent that a ToolContext needs (spec §7.3). */
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
}

interface CallState {
  tool: RegisteredTool;
  call: ToolCall;
  scope: CallScope;
  args: JsonObject;
  metadata: Record<string, JsonValue>;
}

function errorResult(code: ErrorCode, message: string, limit?: number): ToolResult {
  return {
    status: 'error',
    error: {
      code,
      name: errorCodes[code].name,
      message: limit === undefined ? message : truncateErrorMessage(message, limit),
      suggestion: errorCodes[code].suggestion,
      helpUrl: helpUrlFor(code),
    },
  };
}

/**
 * The path of one tool call (DESIGN.md §2): catalog guard → argument validation → toolCall middleware (onion)
 * → handler → ToolResult. Nothing thrown crosses this boundary (spec §2.4.1).
 */
export class ToolExecutor {
  readonly jobs: JobTable;
  private readonly options: ToolExecutorOptions;
  private readonly registry: ToolRegistry;
  private readonly policy: ExecutionPolicy;
  private readonly onDirectCall: ToolExecutorOptions['onDirectCall'];
  private readonly run: (state: CallState) => Promise<ToolResult>;

  constructor(options: ToolExecutorOptions) {
    this.options = options;
    this.registry = options.registry;
    this.policy = options.policy ?? {};
    this.jobs = options.jobs ?? new JobTable();
    this.onDirectCall = options.onDirectCall;
    this.run = composeMiddleware<CallState, ToolCallMiddlewareContext, ToolResult>({
      middlewares: options.middlewares ?? [],
      bind: bindToolCallContext,
      core: (state) => this.invokeHandler(state),
    });
  }

  /** The same executor (registry, policy, jobs) with more toolCall middleware inside the existing chain. */
  withMiddlewares(middlewares: readonly ToolCallMiddleware[]): ToolExecutor {
    if (middlewares.length === 0) return this;
    return new ToolExecutor({
      ...this.options,
      jobs: this.jobs,
      middlewares: [...(this.options.middlewares ?? []), ...middlewares],
    });
  }

  async execute(call: ToolCall, options: { catalog: ToolCatalog; scope: CallScope }): Promise<ToolResult> {
    const { catalog, scope } = options;
    // Spec §9.1: the catalog of this Step is the default scope, checked at execution time.
    if (!catalog.has(call.name)) {
      const direct = this.policy.allowRegistryDirectCalls === true && this.registry.has(call.name);
      if (!direct) {
        return errorResult(
          'E_TOOL_NOT_IN_CATALOG',
          `Tool '${call.name}' is not available in the current Tool Catalog.${describeNearby(call.name, catalog)}`,
        );
      }
      this.onDirectCall?.({ toolName: call.name, toolCallId: call.id });
    }
    const tool = this.registry.get(call.name);
    if (!tool) {
      return errorResult(
        'E_TOOL_NOT_FOUND',
        `Tool '${call.name}' is in the catalog but nothing is registered to run it.`,
      );
    }
    const limit = tool.errorMessageLimit;
    const args = parseArguments(call.args);
    if (typeof args === 'string')
      return errorResult('E_TOOL_INVALID_ARGS', `Invalid arguments for ${call.name}: ${args}`, limit);
    let validate: ReturnType<RegisteredTool['validator']>;
    try {
      validate = tool.validator();
    } catch (thrown) {
      // A schema that cannot compile (registered at run time, e.g. by an extension) fails its calls, not the loop.
      return errorResult(
        'E_SCHEMA_INVALID',
        `Parameters schema of ${call.name} does not compile: ${(thrown as Error).message}`,
        limit,
      );
    }
    if (validate && !validate(args)) {
      const problems = describeSchemaErrors(validate.errors);
      return errorResult('E_TOOL_INVALID_ARGS', `Invalid arguments for ${call.name}: ${problems.join('; ')}`, limit);
    }
    try {
      return await this.run({ tool, call, scope, args, metadata: {} });
    } catch (thrown) {
      // Only middleware can throw here: the handler's own failures are turned into results below.
      return { status: 'error', error: toToolError(thrown, { limit, fallbackCode: 'E_TOOL_MIDDLEWARE' }) };
    }
  }

  private async invokeHandler(state: CallState): Promise<ToolResult> {
    const { tool, call, scope } = state;
    const limit = tool.errorMessageLimit;
    if (scope.signal?.aborted)
      return errorResult('E_TOOL_ABORTED', `Tool '${call.name}' was cancelled before it started.`);
    const controller = new AbortController();
    const context: ToolContext = {
      agentName: scope.agentName,
      instanceKey: scope.instanceKey,
      turnId: scope.turnId,
      toolCallId: call.id,
      message: scope.message,
      workdir: scope.workdir,
      logger: scope.logger,
      signal: controller.signal,
      jobs: this.jobs.forTool(call.name, limit),
      config: tool.config,
      ...(scope.trace ? { trace: scope.trace } : {}),
      ...(scope.agents ? { agents: scope.agents } : {}),
    };
    let output: unknown;
    try {
      output = tool.handler(context, state.args);
      if (isThenable(output)) output = await raceInterrupts({ work: output, controller, tool, call, scope });
    } catch (thrown) {
      if (!controller.signal.aborted) controller.abort('failed');
      return { status: 'error', error: toToolError(thrown, { limit }) };
    }
    if (isPendingSubmission(output)) return { status: 'pending', handle: output.handle };
    return { status: 'ok', output: capOutput(toJsonSafe(output), tool.outputLimit) };
  }
}

function bindToolCallContext(state: CallState, next: () => Promise<ToolResult>): ToolCallMiddlewareContext {
  return {
    get toolName() {
      return state.call.name;
    },
    get toolCallId() {
      return state.call.id;
    },
    get args() {
      return state.args;
    },
    set args(value: JsonObject) {
      state.args = value;
    },
    get metadata() {
      return state.metadata;
    },
    set metadata(value: Record<string, JsonValue>) {
      state.metadata = value;
    },
    next,
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/** Waits for the handler, but answers at once on timeout or cancellation and aborts the handler's signal. */
function raceInterrupts(options: {
  work: PromiseLike<unknown>;
  controller: AbortController;
  tool: RegisteredTool;
  call: ToolCall;
  scope: CallScope;
}): Promise<unknown> {
  const { work, controller, tool, call, scope } = options;
  return new Promise((resolve, reject) => {
    const parent = scope.signal;
    const cleanup = () => {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onAbort);
    };
    const interrupt = (error: GoondanError) => {
      cleanup();
      controller.abort(error);
      reject(error);
    };
    const onAbort = () => interrupt(new GoondanError('E_TOOL_ABORTED', `Tool '${call.name}' was cancelled.`));
    const timer = setTimeout(
      () =>
        interrupt(
          new GoondanError('E_TOOL_TIMEOUT', `Tool '${call.name}' did not finish within ${tool.timeoutMs} ms.`),
        ),
      tool.timeoutMs,
    );
    parent?.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        cleanup();
        resolve(value);
      },
      (thrown) => {
        cleanup();
        reject(thrown);
      },
    );
  });
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

function describeNearby(name: string, catalog: ToolCatalog): string {
  const prefix = name.split('__')[0] ?? '';
  const similar = catalog.items.filter((item) => prefix !== '' && item.name.startsWith(`${prefix}__`)).slice(0, 5);
  if (similar.length > 0)
    return ` Tools of '${prefix}' in the catalog: ${similar.map((item) => item.name).join(', ')}.`;
  return catalog.size <= 20 && catalog.size > 0 ? ` Available: ${catalog.names().join(', ')}.` : '';
}
