import { closestName } from '../errors/closest-names.ts';
import { problemAt } from './create-problem.ts';
import type { FieldPath, YamlDocument } from './locate-field.ts';
import { formatFieldPath } from './locate-field.ts';
import { type ParsedObjectRef, parseObjectRef, refKey } from './object-ref.ts';
import type { BundleProblem, Resource, ResourceKind } from './resources.ts';
import { mayBeUnreadable, type UnreadableDocument } from './unreadable-document.ts';

/** A resource together with the document it came from, so problems can point into it. */
export interface DeclaredResource {
  resource: Resource;
  document: YamlDocument;
}

interface RefSite {
  path: FieldPath;
  value: unknown;
  expectedKind: ResourceKind;
  /** Agent tools/extensions entries may also be `{ ref, config? }`. */
  entry: boolean;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function listSites(resource: Resource): RefSite[] {
  const sites: RefSite[] = [];
  const addList = (field: string, list: unknown, expectedKind: ResourceKind, entry: boolean) => {
    if (!Array.isArray(list)) return;
    list.forEach((value, index) => {
      sites.push({ path: ['spec', field, index], value, expectedKind, entry });
    });
  };
  const spec = resource.spec as Record<string, unknown>;
  if (resource.kind === 'Agent') {
    const modelConfig = spec.modelConfig;
    if (isPlainObject(modelConfig) && modelConfig.modelRef !== undefined) {
      const path = ['spec', 'modelConfig', 'modelRef'];
      sites.push({ path, value: modelConfig.modelRef, expectedKind: 'Model', entry: false });
    }
    addList('tools', spec.tools, 'Tool', true);
    addList('extensions', spec.extensions, 'Extension', true);
  } else if (resource.kind === 'Swarm') {
    if (spec.entryAgent !== undefined) {
      sites.push({ path: ['spec', 'entryAgent'], value: spec.entryAgent, expectedKind: 'Agent', entry: false });
    }
    addList('agents', spec.agents, 'Agent', false);
  } else if (resource.kind === 'Connection') {
    if (spec.connectorRef !== undefined) {
      sites.push({ path: ['spec', 'connectorRef'], value: spec.connectorRef, expectedKind: 'Connector', entry: false });
    }
    if (spec.swarmRef !== undefined) {
      sites.push({ path: ['spec', 'swarmRef'], value: spec.swarmRef, expectedKind: 'Swarm', entry: false });
    }
    const ingress = isPlainObject(spec.ingress) ? spec.ingress : {};
    const rules = Array.isArray(ingress.rules) ? ingress.rules : [];
    rules.forEach((rule: unknown, index) => {
      const route = isPlainObject(rule) && isPlainObject(rule.route) ? rule.route : {};
      if (route.agentRef === undefined) return;
      const path = ['spec', 'ingress', 'rules', index, 'route', 'agentRef'];
      sites.push({ path, value: route.agentRef, expectedKind: 'Agent', entry: false });
    });
  }
  return sites;
}

function namesOfKind(resources: Map<string, Resource>, kind: ResourceKind): string[] {
  return [...resources.values()].filter((resource) => resource.kind === kind).map((resource) => resource.metadata.name);
}

function describeNames(kind: ResourceKind, names: string[]): string {
  if (names.length === 0) return `no ${kind} is declared`;
  const shown = names.slice(0, 20).join(', ');
  return `${kind}s that exist: ${shown}${names.length > 20 ? `, and ${names.length - 20} more` : ''}`;
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** The packages references may name: the bundle's own Package and every library or dependency loaded. */
export interface KnownPackages {
  own?: string | undefined;
  loaded: readonly string[];
}

/**
 * A reference's `package` must be a package the bundle has (E_PACKAGE_UNKNOWN), and the resource it names must come
 * from that package (E_REF_UNRESOLVED, saying where it comes from instead).
 */
function checkPackage(options: {
  ref: ParsedObjectRef;
  target: Resource | undefined;
  document: YamlDocument;
  path: FieldPath;
  packages: KnownPackages;
}): BundleProblem | null {
  const { ref, target, document, path, packages } = options;
  const known = [...(packages.own ? [packages.own] : []), ...packages.loaded];
  if (!known.includes(ref.package!)) {
    const guess = closestName(ref.package!, known);
    return problemAt(document, {
      code: 'E_PACKAGE_UNKNOWN',
      path,
      message: `${formatFieldPath(path)} names package ${ref.package}, which is neither this bundle's Package nor one of its dependencies; packages: ${known.join(', ') || '(none)'}`,
      ...(guess
        ? {
            suggestion: `Did you mean "${guess}"? Otherwise add ${ref.package} to the Package's spec.dependencies and install it with npm.`,
          }
        : {}),
    });
  }
  if (!target || target.kind !== ref.kind) return null;
  const from = target.library ?? packages.own;
  if (from === ref.package) return null;
  const where = target.library ?? (packages.own ? `this bundle (${packages.own})` : 'this bundle');
  return problemAt(document, {
    code: 'E_REF_UNRESOLVED',
    path,
    message: `${formatFieldPath(path)} asks for ${refKey(ref.kind, ref.name)} from ${ref.package}, but the ${refKey(ref.kind, ref.name)} in use comes from ${where}`,
    suggestion: `Drop package: from the reference to use the one from ${where}, or remove the resource that replaces the one of ${ref.package}.`,
  });
}

function checkSite(
  site: RefSite,
  document: YamlDocument,
  resources: Map<string, Resource>,
  unreadable: readonly UnreadableDocument[],
  packages: KnownPackages,
): BundleProblem | null {
  const { expectedKind } = site;
  const usesRefKey = site.entry && isPlainObject(site.value) && 'ref' in site.value;
  const refValue = usesRefKey ? (site.value as Record<string, unknown>).ref : site.value;
  const refPath = usesRefKey ? [...site.path, 'ref'] : site.path;
  const extraKeys = usesRefKey
    ? Object.keys(site.value as object).filter((key) => key !== 'ref' && key !== 'config')
    : [];
  const ref = parseObjectRef(refValue);
  if (!ref || extraKeys.length > 0) {
    const bareName = typeof refValue === 'string' && !refValue.includes('/') ? refValue : undefined;
    const known = bareName !== undefined && resources.has(refKey(expectedKind, bareName));
    const detail =
      extraKeys.length > 0
        ? `unknown field(s) ${extraKeys.join(', ')} beside ref`
        : `${preview(refValue)} is not a reference`;
    return problemAt(document, {
      code: 'E_REF_INVALID',
      path: extraKeys.length > 0 ? site.path : refPath,
      message: `${formatFieldPath(extraKeys.length > 0 ? site.path : refPath)}: ${detail}; write "${expectedKind}/name" or { kind: ${expectedKind}, name }`,
      suggestion: known ? `Write "${expectedKind}/${bareName}".` : undefined,
    });
  }
  const target = resources.get(refKey(ref.kind, ref.name));
  if (ref.package !== undefined) {
    const problem = checkPackage({ ref, target, document, path: refPath, packages });
    if (problem) return problem;
  }
  if (target && ref.kind === expectedKind) return null;
  // The target may be a document that did not parse or could not be read: its own problem says what to fix.
  if (!target && mayBeUnreadable(ref, unreadable)) return null;
  const names = namesOfKind(resources, expectedKind);
  const guess = closestName(ref.name, names);
  const where = formatFieldPath(refPath);
  const message =
    ref.kind === expectedKind
      ? `${where} refers to ${refKey(ref.kind, ref.name)}, which is not declared; ${describeNames(expectedKind, names)}`
      : `${where} refers to ${refKey(ref.kind, ref.name)}, but it must refer to ${/^[AEIOU]/.test(expectedKind) ? 'an' : 'a'} ${expectedKind}; ${describeNames(expectedKind, names)}`;
  const suggestion = guess ? `Did you mean "${refKey(expectedKind, guess)}"?` : undefined;
  return problemAt(document, { code: 'E_REF_UNRESOLVED', path: refPath, message, suggestion });
}

/**
 * Checks every reference between resources: Agent modelConfig.modelRef → Model, tools → Tool, extensions →
 * Extension; Swarm entryAgent and agents → Agent; Connection connectorRef → Connector, swarmRef → Swarm, rules'
 * agentRef → Agent. A reference with `package` must name a known package and a resource from it. A malformed reference is E_REF_INVALID; one that names nothing of
 * the right kind is E_REF_UNRESOLVED and lists the names that exist, unless one of the `unreadable` documents (a
 * YAML error, a broken envelope) may be the target: that document's own problem is reported instead.
 */
export function checkReferences(
  declared: readonly DeclaredResource[],
  resources: Map<string, Resource>,
  unreadable: readonly UnreadableDocument[] = [],
  packages: KnownPackages = { loaded: [] },
): BundleProblem[] {
  const problems: BundleProblem[] = [];
  for (const { resource, document } of declared) {
    for (const site of listSites(resource)) {
      const problem = checkSite(site, document, resources, unreadable, packages);
      if (problem) problems.push(problem);
    }
  }
  return problems;
}
