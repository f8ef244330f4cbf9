import { lazyToolHandlers as lazyToolHandlersOf } from '../config/lazy-tool-handlers.ts';
import type { Bundle, Resource, ToolResource } from '../config/resources.ts';
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
    handlers.set(`Tool/${resource.metadata.name}`, lazyToolHandlersOf(resource as ToolResource));
  }
  return handlers;
}
