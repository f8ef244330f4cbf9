import { problemAt } from './create-problem.ts';
import { findInstalledPackage, isSemverRange, packageVersion, satisfiesRange } from './find-installed-package.ts';
import type { YamlDocument } from './locate-field.ts';
import { isPackageDocument, type PackageInfo, readPackageDocument } from './package-document.ts';
import { readBundleFile } from './read-bundle-file.ts';
import type { BundleProblem } from './resources.ts';
import type { UnreadableDocument } from './unreadable-document.ts';

/** A library loaded beside every bundle (e.g. @goondan/base): a dependency of that name that is not installed uses it. */
export interface LibrarySource {
  dir: string;
  name: string;
}

/** A dependency found on disk, with the resource documents of its goondan.yaml (its Package document taken out). */
export interface ResolvedPackage {
  name: string;
  version: string;
  dir: string;
  documents: YamlDocument[];
  unreadable: UnreadableDocument[];
  /** Every package it depends on, directly or not: its resources may replace theirs. */
  dependsOn: Set<string>;
}

/** Splits a bundle file's documents into its Package document (first, if any) and its resources. */
export function splitPackageDocument(documents: readonly YamlDocument[]): {
  packageDocument: YamlDocument | null;
  resources: YamlDocument[];
  problems: BundleProblem[];
} {
  const problems: BundleProblem[] = [];
  let packageDocument: YamlDocument | null = null;
  const resources: YamlDocument[] = [];
  documents.forEach((document, index) => {
    if (!isPackageDocument(document)) {
      resources.push(document);
      return;
    }
    if (index === 0) {
      packageDocument = document;
      return;
    }
    const message =
      packageDocument === null
        ? 'The Package document must be the first document of goondan.yaml'
        : 'goondan.yaml declares a second Package document; a bundle is one package';
    problems.push(problemAt(document, { code: 'E_PACKAGE_INVALID', path: ['kind'], message }));
  });
  return { packageDocument, resources, problems };
}

interface Resolution {
  rootDir: string;
  libraries: readonly LibrarySource[];
  problems: BundleProblem[];
  /** By package name, in the order they finished resolving (dependencies before their dependents). */
  resolved: Map<string, ResolvedPackage>;
  /** Packages being resolved, by name, with their versions (cycle guard). */
  visiting: Map<string, string>;
}

async function resolveOne(
  state: Resolution,
  owner: { info: PackageInfo; document: YamlDocument; dir: string },
  dependency: PackageInfo['dependencies'][number],
): Promise<string | null> {
  const at = ['spec', 'dependencies', dependency.index];
  const fail = (
    code: 'E_PACKAGE_NOT_FOUND' | 'E_PACKAGE_VERSION' | 'E_PACKAGE_INVALID',
    path: typeof at,
    message: string,
    suggestion?: string,
  ) => {
    state.problems.push(problemAt(owner.document, { code, path, message, ...(suggestion ? { suggestion } : {}) }));
    return null;
  };
  const { name, version: range } = dependency;
  const install = `npm install ${name}@'${range}'`;
  if (!isSemverRange(range)) {
    const shown = range.length > 80 ? `a ${range.length}-character string` : JSON.stringify(range);
    return fail('E_PACKAGE_INVALID', [...at, 'version'], `Dependency ${name}: ${shown} is not a semver range`);
  }
  if (name === owner.info.name) {
    return fail(
      'E_PACKAGE_INVALID',
      [...at, 'name'],
      `${name} depends on itself`,
      'Remove the dependency: a package is never its own dependency (npm refuses to install it too).',
    );
  }
  const known = state.resolved.get(name);
  if (known) {
    if (satisfiesRange(known.version, range)) return name;
    return fail(
      'E_PACKAGE_VERSION',
      [...at, 'version'],
      `${owner.info.name} needs ${name}@${range}, but ${name} ${known.version} is already in use (from ${known.dir})`,
      `Make the ranges of ${name} agree, or install a version both accept.`,
    );
  }
  const visiting = state.visiting.get(name);
  if (visiting !== undefined) {
    // A cycle: the package is already on the way in; its version must still satisfy this range.
    if (satisfiesRange(visiting, range)) return name;
    return fail(
      'E_PACKAGE_VERSION',
      [...at, 'version'],
      `${owner.info.name} needs ${name}@${range}, but ${name} ${visiting} is the one in use (a cycle: it depends on ${owner.info.name})`,
      `Make the ranges of ${name} agree, or install a version both accept.`,
    );
  }
  const installed = findInstalledPackage(name, owner.dir);
  if (installed && 'problem' in installed) {
    return fail(
      'E_PACKAGE_INVALID',
      [...at, 'name'],
      `Dependency ${name} (${installed.dir}) cannot be used: ${installed.problem}`,
      `Reinstall it (${install}), or remove the dependency.`,
    );
  }
  const library = state.libraries.find((candidate) => candidate.name === name);
  const found = installed ?? (library ? { dir: library.dir, version: packageVersion(library.dir) ?? '0.0.0' } : null);
  if (!found) {
    return fail(
      'E_PACKAGE_NOT_FOUND',
      [...at, 'name'],
      `Dependency ${name} (${range}) of ${owner.info.name} is not installed: no node_modules/${name} in ${owner.dir} or a parent`,
      `Install it beside the bundle: ${install}`,
    );
  }
  if (!satisfiesRange(found.version, range)) {
    return fail(
      'E_PACKAGE_VERSION',
      [...at, 'version'],
      `Dependency ${name}: ${found.version} is installed (${found.dir}), but ${owner.info.name} needs ${range}`,
      `Install a version the range accepts (${install}), or change the range to one ${found.version} satisfies.`,
    );
  }
  const file = await readBundleFile({ bundleDir: found.dir, rootDir: state.rootDir });
  if (file.problems.some((problem) => problem.code === 'E_BUNDLE_NOT_FOUND')) {
    return fail(
      'E_PACKAGE_INVALID',
      [...at, 'name'],
      `Dependency ${name} (${found.dir}) has no goondan.yaml: it is an npm package but not a Goondan package`,
      'Depend only on npm packages that ship a goondan.yaml, or remove the dependency.',
    );
  }
  state.problems.push(...file.problems);
  const split = splitPackageDocument(file.documents);
  state.problems.push(...split.problems);
  const dependsOn = new Set<string>();
  state.visiting.set(name, found.version);
  if (split.packageDocument) {
    const read = readPackageDocument(split.packageDocument);
    state.problems.push(...read.problems);
    if (read.info) {
      const self = { info: read.info, document: split.packageDocument, dir: found.dir };
      for (const next of read.info.dependencies) {
        const resolvedName = await resolveOne(state, self, next);
        if (resolvedName === null) continue;
        dependsOn.add(resolvedName);
        for (const deeper of state.resolved.get(resolvedName)?.dependsOn ?? []) dependsOn.add(deeper);
      }
    }
  }
  state.visiting.delete(name);
  state.resolved.set(name, {
    name,
    version: found.version,
    dir: found.dir,
    documents: split.resources,
    unreadable: file.unreadable,
    dependsOn,
  });
  return name;
}

/**
 * Resolves a Package's dependencies through npm (docs/packages.md): each is the package installed in
 * `node_modules` as Node finds it from the depending bundle's directory (else a library of that name loaded beside
 * every bundle), its version within the range, with a goondan.yaml whose resources it contributes. Dependencies of
 * dependencies are resolved from their own directories. Returns them dependencies-first, with every problem
 * (E_PACKAGE_NOT_FOUND, E_PACKAGE_VERSION, E_PACKAGE_INVALID) at the dependency that caused it.
 */
export async function resolveDependencies(options: {
  rootDir: string;
  info: PackageInfo;
  document: YamlDocument;
  libraries: readonly LibrarySource[];
}): Promise<{ packages: ResolvedPackage[]; problems: BundleProblem[] }> {
  const state: Resolution = {
    rootDir: options.rootDir,
    libraries: options.libraries,
    problems: [],
    resolved: new Map(),
    visiting: new Map([[options.info.name, options.info.version]]),
  };
  const owner = { info: options.info, document: options.document, dir: options.rootDir };
  for (const dependency of options.info.dependencies) await resolveOne(state, owner, dependency);
  return { packages: [...state.resolved.values()], problems: state.problems };
}
