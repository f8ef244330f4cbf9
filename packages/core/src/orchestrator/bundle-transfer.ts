import { resolve } from 'node:path';
import type { Bundle, Resource, ToolResource } from '../config/resources.ts';
import { GoondanError } from '../errors/goondan-error.ts';
import type { JsonValue, ToolHandler } from '../types.ts';

/**
 * The validated bundle as it travels to an agent process (`process.bundle` event): the orchestrator has loaded and
 * checked it already, so the process skips YAML parsing and schema validation (most of its cold start).
 */
export function bundleToJson(bundle: Bundle): JsonValue {
  return {
    rootDir: bundle.rootDir,
    resources: [...bundle.resources.values()],
    libraries: bundle.libraries ?? [],
  } as unknown as JsonValue;
}

export function bundleFromJson(value: JsonValue): Bundle {
  const { rootDir, resources, libraries } = value as unknown as {
    rootDir: string;
    resources: Resource[];
    libraries?: string[];
  };
  return {
    rootDir,
    libraries: libraries ?? [],
    resources: new Map(resources.map((resource) => [`${resource.kind}/${resource.metadata.name}`, resource])),
  };
}

/**
 * Handlers of every Tool of the bundle, each imported on its first call rather than at start: the orchestrator
 * checked every entry when it validated the bundle, and an agent process pays only for the tools it uses.
 */
export function lazyToolHandlers(bundle: Bundle): Map<string, Record<string, ToolHandler>> {
  const handlers = new Map<string, Record<string, ToolHandler>>();
  for (const resource of bundle.resources.values()) {
    if (resource.kind !== 'Tool') continue;
    const tool = resource as ToolResource;
    const entry = resolve(tool.location.baseDir, tool.spec.entry);
    let module: Promise<Record<string, unknown>> | undefined;
    const load = async (name: string): Promise<ToolHandler> => {
      module ??= import(entry) as Promise<Record<string, unknown>>;
      let loaded: Record<string, unknown>;
      try {
        loaded = await module;
      } catch (thrown) {
        module = undefined;
        throw new GoondanError(
          'E_TOOL_ENTRY_LOAD',
          `Importing ${tool.spec.entry} failed: ${(thrown as Error)?.message ?? thrown}`,
        );
      }
      const exported = loaded.handlers as Record<string, unknown> | undefined;
      const handler = exported && Object.hasOwn(exported, name) ? exported[name] : undefined;
      if (typeof handler !== 'function') {
        throw new GoondanError(
          'E_TOOL_HANDLER_MISSING',
          `${tool.spec.entry} has no handler function for export "${name}".`,
        );
      }
      return handler as ToolHandler;
    };
    const byExport: Record<string, ToolHandler> = Object.create(null);
    for (const item of tool.spec.exports) {
      byExport[item.name] = async (ctx, input) => (await load(item.name))(ctx, input);
    }
    handlers.set(`Tool/${tool.metadata.name}`, byExport);
  }
  return handlers;
}
