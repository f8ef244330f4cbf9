import { resolve } from 'node:path';
import { GoondanError } from '../errors/goondan-error.ts';
import type { ToolHandler } from '../types.ts';
import type { ToolResource } from './resources.ts';

/**
 * Handlers of a library Tool that no Agent of the bundle lists: its entry module is imported at the first call,
 * not when the bundle loads, so a library of many tools costs nothing to the bundles that do not use them.
 */
export function lazyToolHandlers(resource: ToolResource): Record<string, ToolHandler> {
  const entryPath = resolve(resource.location.baseDir, resource.spec.entry);
  let module: Promise<Record<string, unknown>> | undefined;
  const handlers: Record<string, ToolHandler> = Object.create(null);
  for (const { name } of resource.spec.exports) {
    handlers[name] = async (ctx, input) => {
      module ??= import(entryPath) as Promise<Record<string, unknown>>;
      const functions = ((await module).handlers ?? {}) as Record<string, unknown>;
      const handler = Object.hasOwn(functions, name) ? functions[name] : undefined;
      if (typeof handler !== 'function') {
        throw new GoondanError(
          'E_TOOL_HANDLER_MISSING',
          `${resource.spec.entry} of Tool ${resource.metadata.name} has no handler function for export "${name}".`,
        );
      }
      return (handler as ToolHandler)(ctx, input);
    };
  }
  return handlers;
}
