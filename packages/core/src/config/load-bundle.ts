import { readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { checkApiOptions, isText, optional } from '../errors/check-api-options.ts';
import type { ToolHandler } from '../types.ts';
import { checkConnections } from './check-connections.ts';
import { checkExtensionEntries, extensionEntryFile } from './check-extension-entries.ts';
import { checkModelResources } from './check-model-resources.ts';
import { checkOAuthApps } from './check-oauth-apps.ts';
import { checkPermissionRules, unknownSourceKinds } from './check-permission-rules.ts';
import type { DeclaredResource } from './check-references.ts';
import { checkReferences } from './check-references.ts';
import { checkResourceDocument, resourceOfDocument } from './check-resource-document.ts';
import { createParametersAjv } from './create-parameters-ajv.ts';
import { problemAt } from './create-problem.ts';
import { isFile } from './find-bundle-dir.ts';
import { ignoredFields } from './ignored-fields.ts';
import { lazyToolHandlers } from './lazy-tool-handlers.ts';
import { type DocumentStart, type LibraryFile, libraryCacheDir, readLibraryFile } from './library-file-cache.ts';
import { loadToolHandlers } from './load-tool-handlers.ts';
import { parseRefEntry, refKey } from './object-ref.ts';
import { readPackageDocument } from './package-document.ts';
import { probeEntryModules } from './probe-entry-modules.ts';
import type { readBundleFile } from './read-bundle-file.ts';
import { resolveDependencies, splitPackageDocument } from './resolve-dependencies.ts';
import type { AgentResource, Bundle, BundleProblem, ExtensionResource, Resource, ToolResource } from './resources.ts';
import { type UnreadableDocument, unreadableDocument } from './unreadable-document.ts';

export interface LoadBundleResult {
  /** Null whenever there is any problem: nothing is half-loaded. */
  bundle: Bundle | null;
  /** Every problem found, sorted by file and position. */
  problems: BundleProblem[];
  /** Each Tool's handlers by `Tool/name`, only the declared exports; empty when `bundle` is null. */
  handlers: Map<string, Record<string, ToolHandler>>;
  /**
   * What loads but is likely a mistake (fields of the bundle's own resources this runtime ignores: E_FIELD_IGNORED),
   * sorted like the problems; they never make `bundle` null.
   */
  warnings: BundleProblem[];
}

/** Where resources come from: libraries loaded beside every bundle (0), the Package's dependencies (1), the bundle (2). */
interface Source {
  dir: string;
  /** The library's or dependency's npm name; undefined for the bundle's own file. */
  name?: string;
  rank: 0 | 1 | 2;
  dependsOn?: Set<string>;
  file: Awaited<ReturnType<typeof readBundleFile>> & Partial<Pick<LibraryFile, 'checked' | 'remember'>>;
}

/**
 * What happens when `later` declares a Kind/name `earlier` already did: the bundle's own resource replaces a
 * package's or library's, a dependency replaces a library's and a package replaces those of the packages it depends
 * on; two unrelated packages are ambiguous (conflict); anything else is a duplicate.
 */
function overrideVerdict(earlier: Source, later: Source): 'replace' | 'conflict' | 'duplicate' {
  if (later.rank > earlier.rank) return 'replace';
  if (later.rank === 1 && earlier.rank === 1 && earlier.name !== later.name) {
    return earlier.name !== undefined && later.dependsOn?.has(earlier.name) ? 'replace' : 'conflict';
  }
  return 'duplicate';
}

function packageConflict(options: {
  key: string;
  document: DeclaredResource['document'];
  first: DeclaredResource;
  firstSource: Source;
  source: Source;
}): BundleProblem {
  const { key, first, firstSource, source } = options;
  return problemAt(options.document, {
    code: 'E_PACKAGE_CONFLICT',
    path: ['metadata', 'name'],
    message: `${key} is declared by both ${firstSource.name} (${location(first)}) and ${source.name}; a reference to it would be ambiguous`,
    suggestion: `Declare your own ${key} in goondan.yaml to choose (it replaces both), or drop ${firstSource.name} or ${source.name} from spec.dependencies.`,
  });
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
  return files.filter(isFile);
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
  /**
   * Where checked goondan.yaml files (the libraries' and the bundle's own) are kept (library-file-cache.ts); default
   * libraryCacheDir(), null for none.
   */
  libraryCacheDir?: string | null;
}): Promise<LoadBundleResult> {
  checkApiOptions('loadBundle', options, [
    ['dir', isText, "the bundle's directory (a path)"],
    ['libraries', optional((value) => Array.isArray(value) && value.every(isText)), 'a list of directories'],
  ]);
  const rootDir = resolve(options.dir);
  const cacheDir = options.libraryCacheDir === undefined ? libraryCacheDir() : options.libraryCacheDir;
  // The bundle's own goondan.yaml goes through the same cache as the libraries': keyed by its text, so an edit is a
  // miss, and an unchanged file loads without the yaml package (about 40 ms of CPU of every start).
  const rootFile = await readLibraryFile({ bundleDir: rootDir, rootDir, cacheDir });
  const split = splitPackageDocument(rootFile.documents);
  const packageRead = split.packageDocument ? readPackageDocument(split.packageDocument) : null;
  const libraries = (options.libraries ?? []).map((dir) => ({ dir: resolve(dir), name: libraryName(resolve(dir)) }));
  const resolution =
    packageRead?.info && split.packageDocument
      ? await resolveDependencies({ rootDir, info: packageRead.info, document: split.packageDocument, libraries })
      : { packages: [], problems: [] };
  // A dependency of the same name as a library loaded beside every bundle takes its place.
  const keptLibraries = libraries.filter((library) => !resolution.packages.some((pkg) => pkg.name === library.name));
  const libraryFiles = await Promise.all(
    keptLibraries.map((library) => readLibraryFile({ bundleDir: library.dir, rootDir, cacheDir })),
  );
  const sources: Source[] = [
    ...keptLibraries.map((library, index) => ({ ...library, rank: 0 as const, file: libraryFiles[index]! })),
    ...resolution.packages.map((pkg) => ({
      dir: pkg.dir,
      name: pkg.name,
      rank: 1 as const,
      dependsOn: pkg.dependsOn,
      file: { documents: pkg.documents, problems: [], unreadable: pkg.unreadable },
    })),
    { dir: rootDir, rank: 2 as const, file: { ...rootFile, documents: split.resources } },
  ];
  let parametersAjv: ReturnType<typeof createParametersAjv> | undefined;
  const problems: BundleProblem[] = [...split.problems, ...(packageRead?.problems ?? []), ...resolution.problems];
  const declaredByKey = new Map<string, DeclaredResource>();
  const sourceByKey = new Map<string, Source>();
  const conflicts = new Map<string, BundleProblem>();
  // Documents that did not become resources: references that may point at them are not reported as unresolved.
  const unreadable: UnreadableDocument[] = [];

  for (const source of sources) {
    const { documents, ...file } = source.file;
    const problemsBefore = problems.length;
    const starts: DocumentStart[] = [];
    problems.push(...file.problems);
    unreadable.push(...file.unreadable);
    for (const document of documents) {
      const start = file.checked?.get(document);
      const checked = start
        ? { resource: resourceOfDocument({ document, library: source.name, ...start }), problems: [] }
        : checkResourceDocument({
            document,
            get parametersAjv() {
              parametersAjv ??= createParametersAjv();
              return parametersAjv;
            },
            library: source.name,
          });
      problems.push(...checked.problems);
      if (checked.resource)
        starts.push({ line: checked.resource.location.line, column: checked.resource.location.column });
      if (!checked.resource) {
        unreadable.push(unreadableDocument(document.value));
        continue;
      }
      const declared = { resource: checked.resource, document };
      const key = refKey(checked.resource.kind, checked.resource.metadata.name);
      const first = declaredByKey.get(key);
      const firstSource = sourceByKey.get(key);
      if (first && firstSource) {
        const verdict = overrideVerdict(firstSource, source);
        if (verdict === 'conflict') {
          conflicts.set(key, packageConflict({ key, document, first, firstSource, source }));
          continue;
        }
        if (verdict === 'duplicate') {
          problems.push(
            problemAt(document, {
              code: 'E_RESOURCE_DUPLICATE',
              path: ['metadata', 'name'],
              message: `${key} is declared twice; the first is at ${location(first)}`,
            }),
          );
          continue;
        }
      }
      declaredByKey.set(key, declared);
      sourceByKey.set(key, source);
    }
    if (problems.length === problemsBefore) file.remember?.(starts);
  }
  // Two packages declaring one Kind/name is ambiguous, unless the bundle's own resource of that name replaces both.
  for (const [key, problem] of conflicts) if (sourceByKey.get(key)?.rank !== 2) problems.push(problem);

  const declared = [...declaredByKey.values()];
  const resources = new Map<string, Resource>([...declaredByKey].map(([key, entry]) => [key, entry.resource]));
  const packages = { own: packageRead?.info?.name, loaded: sources.flatMap((source) => source.name ?? []) };
  problems.push(...checkReferences(declared, resources, unreadable, packages));
  problems.push(...checkConnections(declared, resources));
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

  const byPosition = (a: BundleProblem, b: BundleProblem) =>
    compareText(a.file, b.file) || a.line - b.line || a.column - b.column;
  problems.sort(byPosition);
  const warnings = [
    ...ignoredFields(declared),
    ...unknownSourceKinds(declared.filter((entry) => entry.resource.kind === 'Agent')),
  ].sort(byPosition);
  if (problems.length > 0) return { bundle: null, problems, handlers: new Map(), warnings };
  const libraryDirs = keptLibraries.map((library) => library.dir);
  const pkg = packageRead?.info ? { package: packageRead.info } : {};
  return { bundle: { rootDir, resources, libraries: libraryDirs, ...pkg }, problems, handlers, warnings };
}
