import { readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { ToolHandler } from '../types.ts';
import { checkExtensionEntries, extensionEntryFile } from './check-extension-entries.ts';
import { checkModelResources } from './check-model-resources.ts';
import { checkOAuthApps } from './check-oauth-apps.ts';
import { checkPermissionRules } from './check-permission-rules.ts';
import type { DeclaredResource } from './check-references.ts';
import { checkReferences } from './check-references.ts';
import { checkResourceDocument } from './check-resource-document.ts';
import { createParametersAjv } from './create-parameters-ajv.ts';
import { problemAt } from './create-problem.ts';
import { lazyToolHandlers } from './lazy-tool-handlers.ts';
import { loadToolHandlers } from './load-tool-handlers.ts';
import { parseRefEntry, refKey } from './object-ref.ts';
import { probeEntryModules } from './probe-entry-modules.ts';
import { readBundleFile } from './read-bundle-file.ts';
import type { AgentResource, Bundle, BundleProblem, ExtensionResource, Resource, ToolResource } from './resources.ts';
import { type UnreadableDocument, unreadableDocument } from './unreadable-document.ts';

export interface LoadBundleResult {
  /** Null whenever there is any problem: nothing is half-loaded. */
  bundle: Bundle | null;
  /** Every problem found, sorted by file and position. */
  problems: BundleProblem[];
  /** Each Tool's handlers by `Tool/name`, only the declared exports; empty when `bundle` is null. */
  handlers: Map<string, Record<string, ToolHandler>>;
}

interface Source {
  dir: string;
  library?: string;
}

/** A library's name: its package.json name (`@goondan/base`), else its directory name. */
function libraryName(dir: string): string {
  try {
    const name = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown }).name;
    if (typeof name === 'string' && name) return name;
  } catch {
    // No package.json: the directory name will do.
  }
  return basename(dir);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The entry files of the bundle's own Tools and Extensions (not a library's), which are probed in a subprocess
 * before anything imports them here. Missing files are left to the entry checks.
 */
function ownEntryFiles(declared: readonly DeclaredResource[]): string[] {
  const files: string[] = [];
  for (const { resource } of declared) {
    if (resource.library !== undefined) continue;
    if (resource.kind === 'Tool') {
      const entry = (resource as ToolResource).spec.entry;
      if (typeof entry === 'string' && entry.trim() !== '') files.push(resolve(resource.location.baseDir, entry));
    } else if (resource.kind === 'Extension') {
      const file = extensionEntryFile(resource as ExtensionResource);
      if (file !== null) files.push(file);
    }
  }
  return files.filter((file) => statSync(file, { throwIfNoEntry: false })?.isFile());
}

function location(declared: DeclaredResource): string {
  const { file, line, column } = declared.resource.location;
  return `${file}:${line}:${column}`;
}

/** Names of the Tools the bundle's Agents list in `spec.tools`. */
function toolsListedByAgents(declared: readonly DeclaredResource[]): Set<string> {
  const names = new Set<string>();
  for (const { resource } of declared) {
    if (resource.kind !== 'Agent') continue;
    for (const entry of (resource as AgentResource).spec.tools ?? []) {
      const parsed = parseRefEntry(entry);
      if (parsed?.ref.kind === 'Tool') names.add(parsed.ref.name);
    }
  }
  return names;
}

/**
 * Loads and validates the bundle in `dir` (which holds goondan.yaml), with the resources of `libraries` (other
 * bundle directories, e.g. @goondan/base) available too; a user resource with a library resource's Kind/name
 * replaces it. Every problem is reported at once (spec §4.3, §15). The bundle's own Tool and Extension entry modules
 * are first imported in a separate process with a deadline (probeEntryModules), so one that hangs, exits or crashes
 * is a problem instead of the caller's fate; then Tool entries are imported here for their handlers, unless
 * `importHandlers` is false (`gdn validate`: checked from the probe alone, `handlers` is then only the libraries').
 * `checkEntries: false` reads the resources without touching any entry module (no probe, no handlers, no entry
 * problems): for tools that need only the declarations, such as `gdn types` before a handler exists.
 * @example
 * const { bundle, problems } = await loadBundle({ dir: findBundleDir(process.cwd()) });
 * if (!bundle) console.error(formatProblems(problems, { color: false, readFile }));
 */
export async function loadBundle(options: {
  dir: string;
  libraries?: string[];
  importHandlers?: boolean;
  checkEntries?: boolean;
}): Promise<LoadBundleResult> {
  const rootDir = resolve(options.dir);
  const sources: Source[] = [
    ...(options.libraries ?? []).map((dir) => ({ dir: resolve(dir), library: libraryName(resolve(dir)) })),
    { dir: rootDir },
  ];
  const parametersAjv = createParametersAjv();
  const problems: BundleProblem[] = [];
  const declaredByKey = new Map<string, DeclaredResource>();
  // Documents that did not become resources: references that may point at them are not reported as unresolved.
  const unreadable: UnreadableDocument[] = [];

  const files = await Promise.all(sources.map((source) => readBundleFile({ bundleDir: source.dir, rootDir })));
  sources.forEach((source, index) => {
    const { documents, ...file } = files[index] ?? { documents: [], problems: [], unreadable: [] };
    problems.push(...file.problems);
    unreadable.push(...file.unreadable);
    for (const document of documents) {
      const checked = checkResourceDocument({ document, parametersAjv, library: source.library });
      problems.push(...checked.problems);
      if (!checked.resource) {
        unreadable.push(unreadableDocument(document.value));
        continue;
      }
      const declared = { resource: checked.resource, document };
      const key = refKey(checked.resource.kind, checked.resource.metadata.name);
      const first = declaredByKey.get(key);
      // The user's own resources override a library's; any other repeat is a mistake.
      if (first && !(source.library === undefined && first.resource.library !== undefined)) {
        problems.push(
          problemAt(document, {
            code: 'E_RESOURCE_DUPLICATE',
            path: ['metadata', 'name'],
            message: `${key} is declared twice; the first is at ${location(first)}`,
          }),
        );
        continue;
      }
      declaredByKey.set(key, declared);
    }
  });

  const declared = [...declaredByKey.values()];
  const resources = new Map<string, Resource>([...declaredByKey].map(([key, entry]) => [key, entry.resource]));
  problems.push(...checkReferences(declared, resources, unreadable));
  problems.push(...checkModelResources(declared, resources));
  problems.push(...checkOAuthApps(declared));
  let handlers = new Map<string, Record<string, ToolHandler>>();
  if (options.checkEntries ?? true) {
    const probes = await probeEntryModules(ownEntryFiles(declared));
    const tools = declared.filter((entry) => entry.resource.kind === 'Tool');
    const listed = toolsListedByAgents(declared);
    // A library's Tools that no Agent lists are imported at their first call (a registry direct call), not here.
    const deferred = tools.filter(
      (entry) => entry.resource.library !== undefined && !listed.has(entry.resource.metadata.name),
    );
    const loaded = await loadToolHandlers(
      tools.filter((entry) => !deferred.includes(entry)),
      { probes, importModules: options.importHandlers ?? true },
    );
    handlers = loaded.handlers;
    if (options.importHandlers ?? true) {
      for (const entry of deferred) {
        handlers.set(refKey('Tool', entry.resource.metadata.name), lazyToolHandlers(entry.resource as ToolResource));
      }
    }
    problems.push(...loaded.problems);
    problems.push(
      ...checkExtensionEntries(
        declared.filter((entry) => entry.resource.kind === 'Extension'),
        probes,
      ),
    );
  }
  problems.push(
    ...checkPermissionRules(
      declared.filter((entry) => entry.resource.kind === 'Agent'),
      resources,
    ),
  );

  problems.sort((a, b) => compareText(a.file, b.file) || a.line - b.line || a.column - b.column);
  if (problems.length > 0) return { bundle: null, problems, handlers: new Map() };
  const libraries = sources.filter((source) => source.library !== undefined).map((source) => source.dir);
  return { bundle: { rootDir, resources, libraries }, problems, handlers };
}
