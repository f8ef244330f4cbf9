import { resolve } from 'node:path';
import { GoondanError } from '../errors/goondan-error.ts';
import type { ToolHandler } from '../types.ts';
import { pickSingleFunction } from './pick-single-function.ts';
import type { ToolResource } from './resources.ts';

/**
 * Handlers of one Tool whose entry module is imported at the first call, not when the bundle loads: a library
 * Tool no Agent lists, or every Tool of an agent process (the orchestrator checked the entries already). A failed
 * import is E_TOOL_ENTRY_LOAD and is tried again at the next call.
 */
export function lazyToolHandlers(resource: ToolResource): Record<string, ToolHandler> {
  const entryPath = resolve(resource.location.baseDir, resource.spec.entry);
  let module: Promise<Record<string, unknown>> | undefined;
  const load = async (name: string): Promise<ToolHandler> => {
    module ??= import(entryPath) as Promise<Record<string, unknown>>;
    let loaded: Record<string, unknown>;
    try {
      loaded = await module;
    } catch (thrown) {
      module = undefined;
      throw new GoondanError(
        'E_TOOL_ENTRY_LOAD',
        `Importing ${resource.spec.entry} failed: ${(thrown as Error)?.message ?? thrown}`,
      );
    }
    const functions = (loaded.handlers ?? {}) as Record<string, unknown>;
    const handler = resource.spec.singleFunction
      ? pickSingleFunction(loaded)
      : Object.hasOwn(functions, name)
        ? functions[name]
        : undefined;
    if (typeof handler !== 'function') {
      throw new GoondanError(
        'E_TOOL_HANDLER_MISSING',
        `${resource.spec.entry} of Tool ${resource.metadata.name} has no handler function for export "${name}".`,
      );
    }
    return handler as ToolHandler;
  };
  const handlers: Record<string, ToolHandler> = Object.create(null);
  for (const { name } of resource.spec.exports) {
    handlers[name] = async (ctx, input) => (await load(name))(ctx, input);
  }
  return handlers;
}
