import { resolve } from 'node:path';
import type { StepMiddleware, TurnMiddleware } from '../agent/turn-types.ts';
import { parseRefEntry } from '../config/object-ref.ts';
import { entryImportTimeoutMs } from '../config/probe-entry-modules.ts';
import type { AgentResource, Bundle, ExtensionResource } from '../config/resources.ts';
import { GoondanError } from '../errors/goondan-error.ts';
import { wrongMiddlewareResult } from '../pipeline/middleware-results.ts';
import type { InstanceStateStore } from '../store/instance-state-store.ts';
import { withinTime } from '../timers/within-time.ts';
import type { ToolRegistry } from '../tools/tool-registry.ts';
import type { JsonObject, ToolCallMiddleware } from '../types.ts';
import type { ExtensionApi, ExtensionRegister, MiddlewareByKind, PipelineKind } from './extension-api.ts';

interface Registered<K extends PipelineKind> {
  middleware: MiddlewareByKind[K];
  priority: number;
  order: number;
}

/** What the loaded extensions contribute to an agent instance. */
export interface LoadedExtensions {
  turnMiddlewares: TurnMiddleware[];
  stepMiddlewares: StepMiddleware[];
  toolCallMiddlewares: ToolCallMiddleware[];
  resetListeners: (() => void)[];
  closeListeners: (() => void | Promise<void>)[];
}

function sortByPriority<K extends PipelineKind>(list: Registered<K>[]): MiddlewareByKind[K][] {
  return [...list].sort((a, b) => a.priority - b.priority || a.order - b.order).map((entry) => entry.middleware);
}

const namedBy = Symbol('goondan.extension.namedBy');

/** After this long a register(api) still running is reported (a warning); it goes on. */
const REGISTER_SLOW_MS = 10_000;
/** How long register(api) may take before the load fails (GOONDAN_EXTENSION_REGISTER_TIMEOUT_MS sets it). */
export const DEFAULT_REGISTER_TIMEOUT_MS = 120_000;

function registerTimeout(): number {
  const given = Number(process.env.GOONDAN_EXTENSION_REGISTER_TIMEOUT_MS);
  return Number.isSafeInteger(given) && given > 0 ? given : DEFAULT_REGISTER_TIMEOUT_MS;
}

/** How long an extension's onClose listener may take. */
export const LISTENER_TIMEOUT_MS = 5_000;

/** An error naming the extension, for something it threw that is not an Error (null, a string) or a listener. */
function namedError(extensionName: string, what: string, cause?: unknown): Error {
  const error = new Error(`Extension '${extensionName}': ${what}`, cause === undefined ? {} : { cause });
  Object.defineProperty(error, namedBy, { value: extensionName });
  return error;
}

/** A thrown value in words: an Error's message, a string quoted, anything else as it prints. */
function describeThrown(thrown: unknown): string {
  if (typeof thrown === 'string') return JSON.stringify(thrown);
  // Each read may throw: a Proxy whose traps throw, a getter `message`, a toString that throws.
  try {
    if (thrown instanceof Error) return String(thrown.message);
    return String(thrown);
  } catch {
    try {
      return Object.prototype.toString.call(thrown);
    } catch {
      return `a value that cannot be read (a ${typeof thrown})`;
    }
  }
}

/** `value instanceof type`, false when asking throws (a Proxy whose getPrototypeOf trap throws). */
function isInstance(value: unknown, type: abstract new (...args: never[]) => unknown): boolean {
  try {
    return value instanceof type;
  } catch {
    return false;
  }
}

/** An Error already named by an extension's wrapper. */
function isNamed(thrown: unknown): boolean {
  try {
    return thrown instanceof Error && namedBy in thrown;
  } catch {
    return false;
  }
}

/** `thrown`, an Error, with the extension's name in front of its message (once); null when it cannot be. */
function namedInPlace(extensionName: string, thrown: unknown): Error | null {
  try {
    if (!(thrown instanceof Error)) return null;
    if (!(namedBy in thrown)) {
      thrown.message = `Extension '${extensionName}': ${thrown.message}`;
      Object.defineProperty(thrown, namedBy, { value: extensionName });
    }
    return thrown;
  } catch {
    return null; // a Proxy of an Error whose traps throw, a frozen error: a new one names the extension
  }
}

/**
 * An extension's onClose listener, bounded: one that never settles would hold up every close (a command that never
 * ends). It fails, naming the extension, after LISTENER_TIMEOUT_MS; what it threw is named the same way.
 */
function boundedCloseListener(extensionName: string, listener: () => unknown) {
  return async () => {
    try {
      await withinTime(Promise.resolve().then(listener), LISTENER_TIMEOUT_MS, () =>
        namedError(extensionName, `its onClose listener did not finish within ${LISTENER_TIMEOUT_MS / 1000} s`),
      );
    } catch (thrown) {
      throw isNamed(thrown)
        ? thrown
        : namedError(extensionName, `its onClose listener failed: ${describeThrown(thrown)}`, thrown);
    }
  };
}

/** An extension's onConversationReset listener (run synchronously), whose throw names the extension. */
function namedResetListener(extensionName: string, listener: () => void) {
  return () => {
    try {
      listener();
    } catch (thrown) {
      throw namedError(extensionName, `its onConversationReset listener failed: ${describeThrown(thrown)}`, thrown);
    }
  };
}

/**
 * Errors thrown by an extension's middleware name the extension, so the ToolResult or turn error says who; so does
 * an answer that is not a result of its pipeline (a layer without `return ctx.next()`).
 */
function nameErrors<T extends (ctx: never) => Promise<unknown>>(
  extensionName: string,
  kind: PipelineKind,
  middleware: T,
): T {
  const named = async (ctx: never) => {
    try {
      const result = await middleware(ctx);
      const wrong = wrongMiddlewareResult(kind, result);
      if (wrong) throw new Error(wrong.charAt(0).toUpperCase() + wrong.slice(1));
      return result;
    } catch (thrown) {
      // Name the extension that threw, once: outer extensions' wrappers see an error already named.
      throw namedInPlace(extensionName, thrown) ?? namedError(extensionName, `threw ${describeThrown(thrown)}`, thrown);
    }
  };
  return named as unknown as T;
}

/**
 * Imports each Extension the Agent lists (in order), calls its `register(api)` and collects what it registers.
 * A module that fails to import, lacks `register`, or throws while registering fails the whole load with
 * E_EXTENSION_LOAD naming the extension (nothing runs half-configured).
 */
export async function loadExtensions(options: {
  bundle: Bundle;
  agent: AgentResource;
  instanceKey: string;
  /** The instance's workdir, handed to extensions as api.workdir. */
  workdir?: string;
  registry: ToolRegistry;
  state: InstanceStateStore;
  logger: Console;
}): Promise<LoadedExtensions> {
  const { bundle, agent, registry, state } = options;
  const lists = {
    turn: [] as Registered<'turn'>[],
    step: [] as Registered<'step'>[],
    toolCall: [] as Registered<'toolCall'>[],
  };
  const loaded: LoadedExtensions = {
    turnMiddlewares: [],
    stepMiddlewares: [],
    toolCallMiddlewares: [],
    resetListeners: [],
    closeListeners: [],
  };
  let order = 0;
  /**
   * Set once every register(api) has finished: the middleware lists are sorted into the pipeline and the close
   * listeners handed to the instance then, so what is added later would be dropped without a word.
   */
  let loadDone = false;
  const tooLate = (extensionName: string, what: string) =>
    new GoondanError(
      'E_EXTENSION_TOO_LATE',
      `Extension '${extensionName}' called ${what} after the agent started: the pipeline and the close listeners are fixed once every register(api) has finished, so it would never run. Call it while register(api) runs.`,
    );
  for (const entry of agent.spec.extensions ?? []) {
    const parsed = parseRefEntry(entry);
    const resource = parsed ? bundle.resources.get(`Extension/${parsed.ref.name}`) : undefined;
    if (!parsed || !resource || resource.kind !== 'Extension') continue; // refs were checked at load
    const extension = resource as ExtensionResource;
    const name = extension.metadata.name;
    const config: JsonObject = { ...(extension.spec.config ?? {}), ...(parsed.config ?? {}) };
    const prefix = `ext:${name}:`;
    const api: ExtensionApi = {
      extensionName: name,
      agentName: agent.metadata.name,
      instanceKey: options.instanceKey,
      workdir: options.workdir,
      config,
      pipeline: {
        register(kind, middleware, registerOptions = {}) {
          if (loadDone) throw tooLate(name, `api.pipeline.register('${String(kind)}', ...)`);
          if (typeof middleware !== 'function') {
            throw new GoondanError(
              'E_EXTENSION_LOAD',
              `Extension '${name}' registered a ${kind} middleware that is not a function.`,
            );
          }
          if (!(kind in lists)) {
            throw new GoondanError(
              'E_EXTENSION_LOAD',
              `Extension '${name}' used unknown pipeline '${String(kind)}' (turn, step, toolCall).`,
            );
          }
          const { priority = 0 } = registerOptions ?? {};
          if (typeof priority !== 'number' || !Number.isFinite(priority)) {
            throw new GoondanError(
              'E_EXTENSION_LOAD',
              `Extension '${name}' registered a ${kind} middleware with priority ${typeof priority === 'number' ? String(priority) : (JSON.stringify(priority) ?? String(priority))}: a priority is a finite number (lower runs first, outermost; default 0).`,
            );
          }
          order += 1;
          (lists[kind] as Registered<typeof kind>[]).push({
            middleware: nameErrors(name, kind, middleware),
            priority,
            order,
          });
        },
      },
      tools: {
        register(item, handler, registerOptions = {}) {
          const source = item.source?.type === 'mcp' ? item.source : { type: 'extension' as const, name };
          registry.register({ ...item, source }, handler, registerOptions);
        },
        unregister: (toolName) => registry.unregister(toolName),
        list: () => registry.list().map((tool) => tool.item),
      },
      state: {
        get: (key) => state.getState(prefix + key) as never,
        set: (key, value) => {
          const problem = notJson(value);
          if (problem !== null) {
            throw new GoondanError(
              'E_EXTENSION_STATE_INVALID',
              `Extension '${name}': api.state.set('${String(key).slice(0, 100)}', ...) was given what JSON cannot keep: ${problem}. Nothing was stored.`,
            );
          }
          state.setState(prefix + key, value);
        },
        delete: (key) => {
          state.deleteState(prefix + key);
        },
      },
      logger: prefixedLogger(options.logger, name),
      onConversationReset: (listener) => loaded.resetListeners.push(namedResetListener(name, listener)),
      onClose: (listener) => {
        if (loadDone) throw tooLate(name, 'api.onClose(...)');
        loaded.closeListeners.push(boundedCloseListener(name, listener));
      },
    };
    const entryFile = resolve(extension.location.baseDir, extension.spec.entry);
    let register: ExtensionRegister;
    try {
      const late = (what: string, ms: number) => () =>
        new Error(`${what} did not finish within ${ms / 1000} s (an await that never settles?)`);
      const module = (await withinTime(
        import(entryFile),
        entryImportTimeoutMs,
        late('its import', entryImportTimeoutMs),
      )) as {
        register?: unknown;
      };
      if (typeof module.register !== 'function') {
        throw new Error(`its entry ${extension.spec.entry} does not export a register(api) function`);
      }
      register = module.register as ExtensionRegister;
      // register may legitimately wait (the mcp extension connects its servers, each within its connectTimeoutMs):
      // a line after 10 s says what the start waits for; only one that never ends fails the load.
      const registerTimeoutMs = registerTimeout();
      const slow = setTimeout(
        () =>
          options.logger.warn?.(
            `Extension '${name}': register(api) has not finished after ${REGISTER_SLOW_MS / 1000} s; waiting up to ${registerTimeoutMs / 1000} s.`,
          ),
        REGISTER_SLOW_MS,
      );
      try {
        await withinTime(register(api), registerTimeoutMs, late('register(api)', registerTimeoutMs));
      } finally {
        clearTimeout(slow);
      }
    } catch (thrown) {
      for (const listener of loaded.closeListeners) await Promise.resolve(listener()).catch(() => {});
      if (isInstance(thrown, GoondanError)) throw thrown;
      throw new GoondanError('E_EXTENSION_LOAD', `Extension '${name}' failed to load: ${describeThrown(thrown)}`, {
        cause: thrown,
      });
    }
  }
  loadDone = true;
  loaded.turnMiddlewares = sortByPriority(lists.turn);
  loaded.stepMiddlewares = sortByPriority(lists.step);
  loaded.toolCallMiddlewares = sortByPriority(lists.toolCall);
  return loaded;
}

/** The deepest a state value may nest (a deeper one would overflow the stack of JSON.stringify). */
const MAX_STATE_DEPTH = 1_000;

/**
 * Why `value` is not a JSON value that reads back as it was written, or null when it is. JSON.stringify throws a
 * TypeError naming neither the key nor the place for a BigInt or a cycle, and silently turns NaN and Infinity into
 * null, a Map or Set into {} and a Date into a string, so what get() returned was not what was set.
 */
function notJson(value: unknown): string | null {
  const ancestors = new Set<object>();
  const walk = (item: unknown, path: string, depth: number): string | null => {
    switch (typeof item) {
      case 'string':
      case 'boolean':
        return null;
      case 'number':
        return Number.isFinite(item) ? null : `${String(item)} at ${path} (JSON keeps it as null)`;
      case 'undefined':
        return `undefined at ${path}${path === 'value' ? ' (use api.state.delete to remove a key)' : ''}`;
      case 'bigint':
      case 'function':
      case 'symbol':
        return `a ${typeof item} at ${path}`;
    }
    if (item === null) return null;
    const object = item as object;
    if (depth > MAX_STATE_DEPTH) return `a value nested deeper than ${MAX_STATE_DEPTH} levels at ${path}`;
    if (ancestors.has(object)) return `a cycle at ${path} (it refers to an object that holds it)`;
    let entries: [string, unknown][];
    try {
      if (Array.isArray(object)) {
        entries = [];
        for (let index = 0; index < object.length; index += 1) entries.push([`[${index}]`, object[index]]);
      } else {
        const prototype = Object.getPrototypeOf(object);
        if (prototype !== Object.prototype && prototype !== null) {
          const kind = (prototype as { constructor?: { name?: unknown } }).constructor?.name;
          return `a ${typeof kind === 'string' && kind ? kind : 'non-plain object'} at ${path} (only plain objects and arrays)`;
        }
        entries = Object.keys(object).map((key) => [`.${key}`, (object as Record<string, unknown>)[key]]);
      }
    } catch (thrown) {
      return `a value that cannot be read at ${path} (${thrown instanceof Error ? thrown.message : 'it threw'})`;
    }
    ancestors.add(object);
    for (const [step, child] of entries) {
      // An object's undefined properties are left out, as JSON.stringify does (optional fields).
      if (child === undefined && step.startsWith('.')) continue;
      const problem = walk(child, `${path}${step}`, depth + 1);
      if (problem !== null) return problem;
    }
    ancestors.delete(object);
    return null;
  };
  return walk(value, 'value', 0);
}

function prefixedLogger(base: Console, name: string): Console {
  const tag = `[${name}]`;
  return new Proxy(base, {
    get(target, key) {
      const value = Reflect.get(target, key);
      if (typeof value !== 'function' || !['log', 'info', 'warn', 'error', 'debug'].includes(String(key))) return value;
      return (...args: unknown[]) => (value as (...values: unknown[]) => void).call(target, tag, ...args);
    },
  });
}
