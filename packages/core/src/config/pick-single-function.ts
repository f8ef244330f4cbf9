// Apart from load-tool-handlers.ts so a lazy handler (lazy-tool-handlers.ts, agent processes) does not load the
// bundle checker with it (about 2.6 MB of an idle agent process, docs/performance.md).
import { propertyTypes } from './property-types.ts';

/** What a module exports and, if `handlers` is an object, the `typeof` of each of its own properties. */
export type ModuleShape = { exports: Record<string, string>; handlers: Record<string, string> | null };

export function shapeOf(module: Record<string, unknown>): ModuleShape {
  const { handlers } = module;
  const isObject = typeof handlers === 'object' && handlers !== null && !Array.isArray(handlers);
  return { exports: propertyTypes(module), handlers: isObject ? propertyTypes(handlers) : null };
}

/** Where an older single-function Tool's handler is: the only function of `handlers`, else `handler`, else default. */
export function singleFunctionSource(shape: ModuleShape): string | null {
  const functions = Object.entries(shape.handlers ?? {}).filter(([, type]) => type === 'function');
  if (functions.length === 1) return `handlers.${functions[0]![0]}`;
  if (shape.exports.handler === 'function') return 'handler';
  if (shape.exports.default === 'function') return 'default';
  return null;
}

/** The function singleFunctionSource names, taken from the imported module. */
export function pickSingleFunction(module: Record<string, unknown>): unknown {
  const source = singleFunctionSource(shapeOf(module));
  if (source === null) return undefined;
  if (source.startsWith('handlers.')) return (module.handlers as Record<string, unknown>)[source.slice(9)];
  return module[source];
}
