import { isSingleFunctionTool } from './check-tool-rules.ts';
import type { ResourceKind } from './resources.ts';

/** The export name an older single-function Tool gets: `calculate` is offered to the model as `calculate__run`. */
export const SINGLE_FUNCTION_EXPORT = 'run';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads the shapes of bundles written for the original Goondan that mean one thing only, so they load as they are
 * (docs/migrating.md): a Tool with `spec.parameters` and no `exports` becomes one export `run` (marked
 * `singleFunction`, so its module's only handler serves it), and a Swarm's `agents` entries `{ ref }` become plain
 * references. Other shapes are left to the checks, and to `gdn migrate`.
 */
export function readOlderShapes(kind: ResourceKind, spec: Record<string, unknown>): Record<string, unknown> {
  if (kind === 'Tool' && isSingleFunctionTool(spec)) {
    const description = typeof spec.description === 'string' ? { description: spec.description } : {};
    const parameters = isPlainObject(spec.parameters) ? { parameters: spec.parameters } : {};
    return {
      ...spec,
      singleFunction: true,
      exports: [{ name: SINGLE_FUNCTION_EXPORT, ...description, ...parameters }],
    };
  }
  if (kind === 'Swarm' && Array.isArray(spec.agents)) {
    const agents = spec.agents.map((entry: unknown) =>
      isPlainObject(entry) && 'ref' in entry && Object.keys(entry).length === 1 ? entry.ref : entry,
    );
    return { ...spec, agents };
  }
  return spec;
}
