import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { closestNames } from '../errors/closest-names.ts';
import { withinTime } from '../timers/within-time.ts';
import type { ToolHandler } from '../types.ts';
import type { DeclaredResource } from './check-references.ts';
import { problemAt } from './create-problem.ts';
import { entryLoadProblem } from './entry-load-problem.ts';
import { refKey } from './object-ref.ts';
import { type ModuleShape, pickSingleFunction, shapeOf, singleFunctionSource } from './pick-single-function.ts';
import { type EntryProbeReport, entryImportTimeoutMs } from './probe-entry-modules.ts';
import { hasMoreNames, maxPropertyNames } from './property-types.ts';
import { SINGLE_FUNCTION_EXPORT } from './read-older-shapes.ts';
import type { BundleProblem, ToolResource } from './resources.ts';

/** Names quoted in one message at most: a module with thousands of exports must not make every problem huge. */
const quotedNames = 10;
/** Missing handlers of one Tool that get the closest names; each search reads every name, so not thousands. */
const closestSearches = 20;

/**
 * `names` for a message: all of them when few; else the few closest to `wanted` (or the first few, when none is
 * close or `wanted` is not given) and how many more there are, so a message stays one line however large the module.
 * @example quoteNames(names, 't1000') // 't100, t1001, t1002 (the closest) and 29997 more'
 */
function quoteNames(names: string[], wanted?: string): string {
  if (names.length === 0) return 'none';
  if (names.length <= quotedNames) return names.join(', ');
  const closest = wanted === undefined ? [] : closestNames(wanted, names, 3);
  if (closest.length > 0) return `${closest.join(', ')} (the closest) and ${names.length - closest.length} more`;
  return `${names.slice(0, 3).join(', ')} and ${names.length - 3} more`;
}

function describe(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}

function importWithTimeout(absolutePath: string): Promise<Record<string, unknown>> {
  return withinTime(
    import(absolutePath) as Promise<Record<string, unknown>>,
    entryImportTimeoutMs,
    () => new Error(`it did not finish loading within ${entryImportTimeoutMs / 1000} s`),
  );
}

interface LoadOptions {
  /** Reports of the entry modules that were probed in a subprocess (probeEntryModules), by absolute path. */
  probes: ReadonlyMap<string, EntryProbeReport>;
  /** False: a probed module is checked from its report alone and not imported here (`gdn validate`). */
  importModules: boolean;
}

async function loadOne(
  declared: DeclaredResource,
  problems: BundleProblem[],
  options: LoadOptions,
): Promise<Record<string, ToolHandler> | null> {
  const resource = declared.resource as ToolResource;
  const { document } = declared;
  const entry = resource.spec.entry;
  if (typeof entry !== 'string' || entry.trim() === '') return null;
  const absolutePath = resolve(resource.location.baseDir, entry);
  const entryPath = ['spec', 'entry'];
  const stats = await stat(absolutePath).catch(() => null);
  if (!stats?.isFile()) {
    const what = stats ? 'is not a file' : 'does not exist';
    const message = `spec.entry "${entry}" ${what} (looked for ${absolutePath})`;
    problems.push(problemAt(document, { code: 'E_TOOL_ENTRY_NOT_FOUND', path: entryPath, message }));
    return null;
  }
  const probe = options.probes.get(absolutePath);
  if (probe?.type === 'failed') {
    problems.push(entryLoadProblem({ declared, thrown: probe.error, message: probe.reason }));
    return null;
  }
  let module: Record<string, unknown> | undefined;
  if (options.importModules || !probe) {
    try {
      module = await importWithTimeout(absolutePath);
    } catch (thrown) {
      problems.push(entryLoadProblem({ declared, thrown, message: describe(thrown) }));
      return null;
    }
  }
  const shape = module ? shapeOf(module) : (probe as ModuleShape);
  if (hasMoreNames(shape.exports) || (shape.handlers && hasMoreNames(shape.handlers))) {
    const what = shape.handlers && hasMoreNames(shape.handlers) ? 'its handlers object has' : 'it exports';
    problems.push(
      problemAt(document, {
        code: 'E_TOOL_HANDLER_MISSING',
        path: entryPath,
        message: `"${entry}": ${what} more than ${maxPropertyNames} names, more than gdn reads, so its handlers cannot be checked`,
        suggestion: `Split the Tool into Tools of fewer exports: gdn reads at most ${maxPropertyNames} names of a module's exports and of its handlers.`,
      }),
    );
    return null;
  }
  if (resource.spec.singleFunction) {
    const found = singleFunctionSource(shape);
    if (found === null) {
      const message = `"${entry}" of a single-function Tool exports no handler: give it one function in handlers, a handler export or a default export (docs/migrating.md)`;
      problems.push(problemAt(document, { code: 'E_TOOL_HANDLERS_MISSING', path: entryPath, message }));
      return null;
    }
    const loaded: Record<string, ToolHandler> = Object.create(null);
    if (module) loaded[SINGLE_FUNCTION_EXPORT] = pickSingleFunction(module) as ToolHandler;
    return loaded;
  }
  if (!shape.handlers) {
    const found = quoteNames(Object.keys(shape.exports));
    const message = `"${entry}" does not export a handlers object (spec §7.2); its exports: ${found}`;
    problems.push(problemAt(document, { code: 'E_TOOL_HANDLERS_MISSING', path: entryPath, message }));
    return null;
  }
  const handlerTypes = shape.handlers;
  const functions = (module?.handlers ?? {}) as Record<string, unknown>;
  // Only declared exports are reachable, and only own properties count (`constructor` is not a handler).
  const loaded: Record<string, ToolHandler> = Object.create(null);
  const exports = Array.isArray(resource.spec.exports) ? resource.spec.exports : [];
  const handlerNames = Object.keys(handlerTypes);
  let searches = 0;
  exports.forEach((item, index) => {
    const name = (item as { name?: unknown } | null)?.name;
    if (typeof name !== 'string') return;
    if (Object.hasOwn(handlerTypes, name) && handlerTypes[name] === 'function') {
      if (module) loaded[name] = functions[name] as ToolHandler;
      return;
    }
    const available = quoteNames(handlerNames, searches++ < closestSearches ? name : undefined);
    problems.push(
      problemAt(document, {
        code: 'E_TOOL_HANDLER_MISSING',
        path: ['spec', 'exports', index, 'name'],
        message: `"${entry}" has no handler function for export "${name}" (spec §15); handlers has: ${available}`,
      }),
    );
  });
  return loaded;
}

/**
 * Imports each Tool's entry module with Bun (spec §2.7, §7.2) and checks it: the file exists, it imports, it exports
 * `handlers`, and there is a function for every export. Returns the handlers by `Tool/name`. A module whose probe
 * failed is not imported here; with `importModules: false` a probed module is checked from its report only.
 */
export async function loadToolHandlers(
  tools: readonly DeclaredResource[],
  options: LoadOptions = { probes: new Map(), importModules: true },
): Promise<{
  handlers: Map<string, Record<string, ToolHandler>>;
  problems: BundleProblem[];
}> {
  const problems: BundleProblem[] = [];
  const handlers = new Map<string, Record<string, ToolHandler>>();
  const loaded = await Promise.all(tools.map((tool) => loadOne(tool, problems, options)));
  tools.forEach((tool, index) => {
    const result = loaded[index];
    if (result) handlers.set(refKey('Tool', tool.resource.metadata.name), result);
  });
  return { handlers, problems };
}
