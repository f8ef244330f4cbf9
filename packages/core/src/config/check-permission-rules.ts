import { closestName } from '../errors/closest-names.ts';
import { isToolNameGlob, type PermissionRules } from '../permissions/permission-types.ts';
import type { DeclaredResource } from './check-references.ts';
import { problemAt } from './create-problem.ts';
import type { AgentResource, BundleProblem, Resource, ToolResource } from './resources.ts';

/**
 * A permission rule naming a tool of a Tool resource in the bundle must name one of its exports: a misspelt
 * `deny` would silently deny nothing. Names of other resources (MCP servers, extensions) are registered only at
 * run time and cannot be checked here; globs are not checked either.
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
        const problem = unknownExport(name, resources);
        if (!problem) continue;
        const path = site.path.at(-1) === 'tools' ? [...site.path, name] : site.path;
        problems.push(problemAt(document, { code: 'E_REF_UNRESOLVED', path, at: 'key', message: problem }));
      }
    }
  }
  return problems;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toolNames(rules: PermissionRules | unknown): string[] {
  return isObject(rules) && isObject(rules.tools) ? Object.keys(rules.tools) : [];
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
