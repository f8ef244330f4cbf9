import { problemAt } from './create-problem.ts';
import type { YamlDocument } from './locate-field.ts';
import { API_VERSION, type BundleProblem, type PackageDependency, type PackageInfo } from './resources.ts';

export type { PackageDependency, PackageInfo } from './resources.ts';

/** npm's rule for package names (lowercase, URL-safe, an optional @scope/). */
export const npmNamePattern = /^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;
const semverPattern = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether a parsed document is a `kind: Package` document. */
export function isPackageDocument(document: YamlDocument): boolean {
  return isPlainObject(document.value) && document.value.kind === 'Package';
}

/**
 * Checks a `kind: Package` document: envelope, an npm name, a semver `spec.version`, optional `description`, and
 * `dependencies` as a list of `{ name, version }` with no name twice. Returns the package (null when its name or
 * version cannot be read) and every problem (E_PACKAGE_INVALID).
 */
export function readPackageDocument(document: YamlDocument): { info: PackageInfo | null; problems: BundleProblem[] } {
  const problems: BundleProblem[] = [];
  const fail = (path: (string | number)[], message: string) =>
    problems.push(problemAt(document, { code: 'E_PACKAGE_INVALID', path, message }));
  const value = document.value as Record<string, unknown>;
  for (const key of Object.keys(value)) {
    if (!['apiVersion', 'kind', 'metadata', 'spec'].includes(key)) fail([key], `Package has unknown field "${key}"`);
  }
  if (value.apiVersion !== API_VERSION) {
    fail(['apiVersion'], `Package apiVersion must be ${API_VERSION} (got ${JSON.stringify(value.apiVersion)})`);
  }
  const metadata = isPlainObject(value.metadata) ? value.metadata : {};
  const name = metadata.name;
  if (typeof name !== 'string' || !npmNamePattern.test(name)) {
    fail(
      ['metadata', 'name'],
      `Package metadata.name must be an npm package name such as @acme/helpdesk (got ${JSON.stringify(name)})`,
    );
  }
  const spec = isPlainObject(value.spec) ? value.spec : null;
  if (!spec) {
    fail(['spec'], 'Package needs a spec with at least version');
    return { info: null, problems };
  }
  for (const key of Object.keys(spec)) {
    if (!['version', 'description', 'dependencies'].includes(key)) {
      fail(['spec', key], `Package spec has unknown field "${key}" (known: version, description, dependencies)`);
    }
  }
  const version = spec.version;
  if (typeof version !== 'string' || !semverPattern.test(version)) {
    fail(
      ['spec', 'version'],
      `Package spec.version must be a semver version such as 0.1.0 (got ${JSON.stringify(version)})`,
    );
  }
  if (spec.description !== undefined && typeof spec.description !== 'string') {
    fail(['spec', 'description'], 'Package spec.description must be a string');
  }
  const dependencies: PackageDependency[] = [];
  const list = spec.dependencies ?? [];
  if (!Array.isArray(list)) {
    fail(['spec', 'dependencies'], 'Package spec.dependencies must be a list of { name, version }');
  } else {
    list.forEach((item: unknown, index) => {
      const at = ['spec', 'dependencies', index];
      if (!isPlainObject(item) || typeof item.name !== 'string' || !npmNamePattern.test(item.name)) {
        fail(at, 'A dependency is { name: <npm package name>, version: <semver range> }');
        return;
      }
      const extra = Object.keys(item).filter((key) => key !== 'name' && key !== 'version');
      if (extra.length > 0) fail([...at, extra[0]!], `A dependency has only name and version (got "${extra[0]}")`);
      const range = item.version ?? '*';
      if (typeof range !== 'string' || range.trim() === '') {
        fail([...at, 'version'], `Dependency ${item.name}: version must be a semver range such as ^0.1.0`);
        return;
      }
      if (dependencies.some((dependency) => dependency.name === item.name)) {
        fail([...at, 'name'], `Dependency ${item.name} is listed twice`);
        return;
      }
      dependencies.push({ name: item.name, version: range, index });
    });
  }
  if (typeof name !== 'string' || typeof version !== 'string') return { info: null, problems };
  const description = typeof spec.description === 'string' ? { description: spec.description } : {};
  return { info: { name, version, ...description, dependencies }, problems };
}
