import { closestName } from '../errors/closest-names.ts';
import { bracesPair, isToolNameGlob, knownSourceKinds, type PermissionRules } from '../permissions/permission-types.ts';
import type { DeclaredResource } from './check-references.ts';
import { problemAt } from './create-problem.ts';
import type { AgentResource, BundleProblem, Resource, ToolResource } from './resources.ts';

/**
 * A permission rule naming a tool of a Tool resource in the bundle must name one of its exports: a misspelt
 * `deny` would silently deny nothing. Names of other resources (MCP servers, extensions) are registered only at
 * run time and cannot be checked here; a glob is checked only for naming a bundle Tool in another case.
 */
export function checkPermissionRules(
  agents: readonly DeclaredResource[],
  resources: Map<string, Resource>,
): BundleProblem[] {
  const problems: BundleProblem[] = [];
  for (const { resource, document } of agents) {
    const permissions = (resource as AgentResource).spec.permissions;
    // A wrong shape was reported by the shape check; only well-formed rules are looked at here.
    if (!isObject(permissions)) continue;
    const sites: { path: (string | number)[]; names: string[] }[] = [
      { path: ['spec', 'permissions', 'tools'], names: toolNames(permissions) },
      ...Object.entries(isObject(permissions.sources) ? permissions.sources : {}).map(([key, rules]) => ({
        path: ['spec', 'permissions', 'sources', key, 'tools'],
        names: toolNames(rules),
      })),
    ];
    const direct = permissions.registryDirectCalls;
    if (Array.isArray(direct)) {
      direct.forEach((name, index) => {
        if (typeof name === 'string')
          sites.push({ path: ['spec', 'permissions', 'registryDirectCalls', index], names: [name] });
      });
    }
    for (const site of sites) {
      for (const name of site.names) {
        const path = site.path.at(-1) === 'tools' ? [...site.path, name] : site.path;
        const unpaired = unpairedBraces(name);
        if (unpaired) {
          problems.push(problemAt(document, { code: 'E_RESOURCE_INVALID', path, at: 'key', message: unpaired }));
          continue;
        }
        const problem = unknownExport(name, resources) ?? otherCase(name, resources);
        if (!problem) continue;
        problems.push(problemAt(document, { code: 'E_REF_UNRESOLVED', path, at: 'key', message: problem }));
      }
    }
  }
  return problems;
}

/**
 * Warnings for `spec.permissions.sources` keys of a kind no turn of the runtime has (`users:telegram`): their rules
 * only tighten, so a misspelt kind would tighten nothing. A warning, not a problem: a program may give turns kinds
 * of its own. The bundle's own Agents only.
 */
export function unknownSourceKinds(agents: readonly DeclaredResource[]): BundleProblem[] {
  const warnings: BundleProblem[] = [];
  for (const { resource, document } of agents) {
    if (resource.library !== undefined) continue;
    const permissions = (resource as AgentResource).spec.permissions;
    if (!isObject(permissions) || !isObject(permissions.sources)) continue;
    for (const key of Object.keys(permissions.sources)) {
      const kind = key.split(':')[0] ?? key;
      if ((knownSourceKinds as readonly string[]).includes(kind)) continue;
      const meant = closestName(kind, knownSourceKinds);
      warnings.push(
        problemAt(document, {
          code: 'E_FIELD_IGNORED',
          path: ['spec', 'permissions', 'sources', key],
          at: 'key',
          message: `spec.permissions.sources.${key}: no turn of the runtime has the source kind '${kind}', so these rules tighten nothing${meant ? `; did you mean '${key.replace(kind, meant)}'?` : ''}`,
          suggestion: `Source kinds: ${knownSourceKinds.join(', ')} (docs/permissions.md#sources). Keep the key only if your program gives turns this kind.`,
        }),
      );
    }
  }
  return warnings;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toolNames(rules: PermissionRules | unknown): string[] {
  return isObject(rules) && isObject(rules.tools) ? Object.keys(rules.tools) : [];
}

/** A glob whose braces do not pair: Bun.Glob takes them literally, so the rule matches no tool name at all. */
function unpairedBraces(name: string): string | null {
  if (bracesPair(name)) return null;
  return `Permission rule '${name}' has a '{' without its '}' (or the reverse), so it matches no tool: pair the braces ({a,b}).`;
}

/**
 * A rule naming no Tool of the bundle, whose name is one of them in another case (`BASH__exec` for `bash__exec`, or
 * the glob `Bash__*` for `bash__*`): tool names are matched exactly, so it would decide nothing. A glob is looked at
 * only when the part before `__` is literal and no resource of any kind (an MCP server's tools are registered at run
 * time under its name) has that exact name.
 */
function otherCase(name: string, resources: Map<string, Resource>): string | null {
  const separator = name.indexOf('__');
  if (separator <= 0) return null;
  const prefix = name.slice(0, separator);
  const glob = isToolNameGlob(name);
  if (glob && isToolNameGlob(prefix)) return null;
  if (resources.has(`Tool/${prefix}`)) return null;
  if (glob && [...resources.values()].some((resource) => resource.metadata.name === prefix)) return null;
  for (const resource of resources.values()) {
    if (resource.kind !== 'Tool' || resource.metadata.name.toLowerCase() !== prefix.toLowerCase()) continue;
    const rest = name.slice(separator + 2);
    if (glob) {
      return `Permission rule '${name}' matches no tool: tool names are matched exactly, in their case (did you mean '${resource.metadata.name}__${rest}'?).`;
    }
    const exports = Array.isArray((resource as ToolResource).spec.exports)
      ? (resource as ToolResource).spec.exports
      : [];
    const wanted = rest.toLowerCase();
    const exported = exports.find((item) => item.name.toLowerCase() === wanted)?.name ?? rest;
    return `Permission rule '${name}' names no tool: tool names are matched exactly (did you mean '${resource.metadata.name}__${exported}'?).`;
  }
  return null;
}

function unknownExport(name: string, resources: Map<string, Resource>): string | null {
  if (isToolNameGlob(name)) return null;
  const separator = name.indexOf('__');
  if (separator <= 0) return null;
  const tool = resources.get(`Tool/${name.slice(0, separator)}`) as ToolResource | undefined;
  if (tool?.kind !== 'Tool' || !Array.isArray(tool.spec.exports)) return null;
  const exports = tool.spec.exports.map((exported) => exported.name);
  const wanted = name.slice(separator + 2);
  if (exports.includes(wanted)) return null;
  const close = closestName(wanted, exports);
  return `Permission rule '${name}': Tool '${tool.metadata.name}' has no export '${wanted}'${close ? ` (did you mean '${tool.metadata.name}__${close}'?)` : ''}. Its exports: ${exports.join(', ')}.`;
}
