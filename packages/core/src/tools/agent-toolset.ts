import { parseRefEntry } from '../config/object-ref.ts';
import type { AgentResource, Bundle, ToolResource } from '../config/resources.ts';
import { GoondanError } from '../errors/goondan-error.ts';
import { quotedValue } from '../errors/quoted-value.ts';
import { PermissionPolicy } from '../permissions/permission-policy.ts';
import type { JsonObject, ToolCallMiddleware, ToolHandler } from '../types.ts';
import { CatalogBuilder } from './catalog-builder.ts';
import { checkAvailability } from './tool-availability.ts';
import { ToolExecutor } from './tool-executor.ts';
import { buildToolName } from './tool-name.ts';
import { ToolRegistry } from './tool-registry.ts';

export interface AgentToolset {
  /** The agent, or null in tool-development mode (a bundle without agents). */
  agent: AgentResource | null;
  registry: ToolRegistry;
  catalogBuilder: CatalogBuilder;
  /** Replaced once extensions have added their toolCall middleware. */
  executor: ToolExecutor;
  /** Tools not registered because their backend is missing on this machine (spec.requires), by full name. */
  unavailable?: ReadonlyMap<string, UnavailableTool>;
}

/** A tool left out because a need of its `requires` is unmet here (docs/resources.md#requires). */
export interface UnavailableTool {
  name: string;
  /** The Tool resource's name. */
  resource: string;
  /** What is missing, e.g. "needs the command playerctl on PATH (not found)". */
  reason: string;
  install?: string;
  /** Whether the agent's spec.tools (or, without an agent, the bundle itself) lists its resource. */
  declared: boolean;
}

/** The name an Agent's tool entry points at (refs were checked when the bundle loaded). */
function refName(entry: unknown): string {
  return parseRefEntry(entry)?.ref.name ?? '';
}

/** Picks the agent a command acts on: the named one, else the only one, else none when the bundle has none. */
export function selectAgent(bundle: Bundle, name: string | undefined): AgentResource | null {
  const agents = [...bundle.resources.values()].filter(
    (resource): resource is AgentResource => resource.kind === 'Agent',
  );
  if (name !== undefined) {
    const found = agents.find((agent) => agent.metadata.name === name);
    if (!found) {
      const known = agents.map((agent) => agent.metadata.name).join(', ') || '(none)';
      throw new GoondanError(
        'E_REF_UNRESOLVED',
        `No Agent named ${quotedValue(name)} in the bundle. Agents: ${known}.`,
      );
    }
    return found;
  }
  if (agents.length <= 1) return agents[0] ?? null;
  throw new GoondanError(
    'E_REF_UNRESOLVED',
    `The bundle has ${agents.length} agents (${agents.map((agent) => agent.metadata.name).join(', ')}); choose one with --agent.`,
    { suggestion: 'Pass --agent NAME.' },
  );
}

/**
 * The registry, catalog and executor of one agent (spec §3): the registry holds every Tool of the bundle, the
 * catalog starts from the Agent's spec.tools (spec §2.1.2). Without an agent, every Tool the user declared
 * (not library tools) is in the catalog, so tool authors can try their tools before writing an Agent.
 */
export function createAgentToolset(options: {
  bundle: Bundle;
  handlers: Map<string, Record<string, ToolHandler>>;
  agent: AgentResource | null;
  middlewares?: readonly ToolCallMiddleware[];
}): AgentToolset {
  const { bundle, handlers, agent } = options;
  const perToolConfig = new Map<string, JsonObject>();
  for (const entry of agent?.spec.tools ?? []) {
    const parsed = parseRefEntry(entry);
    if (parsed?.config) perToolConfig.set(parsed.ref.name, parsed.config);
  }
  const registry = new ToolRegistry();
  const tools = [...bundle.resources.values()].filter((resource): resource is ToolResource => resource.kind === 'Tool');
  const declared = agent
    ? (agent.spec.tools ?? []).map(refName)
    : tools.filter((tool) => tool.library === undefined).map((tool) => tool.metadata.name);
  // Decided once, here: a tool whose backend is missing is never registered, so never offered or run.
  const unavailable = new Map<string, UnavailableTool>();
  for (const tool of tools) {
    const resourceName = tool.metadata.name;
    const toolHandlers = handlers.get(`Tool/${resourceName}`) ?? {};
    const config = { ...(tool.spec.config ?? {}), ...(perToolConfig.get(resourceName) ?? {}) };
    for (const exported of tool.spec.exports) {
      const name = buildToolName(resourceName, exported.name);
      if (tool.spec.requires || exported.requires) {
        const availability = checkAvailability([tool.spec.requires, exported.requires], {
          platform: process.platform,
          env: process.env,
          config,
        });
        if (!availability.available) {
          const { reason, install } = availability;
          const declaredHere = agent ? declared.includes(resourceName) : tool.library === undefined;
          unavailable.set(name, {
            name,
            resource: resourceName,
            reason,
            declared: declaredHere,
            ...(install ? { install } : {}),
          });
          continue;
        }
      }
      const item = {
        name,
        ...(exported.description === undefined ? {} : { description: exported.description }),
        ...(exported.parameters === undefined ? {} : { parameters: exported.parameters }),
        source: { type: 'config' as const, name: resourceName },
      };
      registry.register(item, toolHandlers[exported.name] as ToolHandler, {
        errorMessageLimit: tool.spec.errorMessageLimit,
        timeoutMs: tool.spec.timeoutMs,
        outputLimit: tool.spec.outputLimit,
        config,
        category: exported.category ?? tool.spec.category,
      });
    }
  }
  return {
    agent,
    registry,
    catalogBuilder: new CatalogBuilder(registry, declared),
    unavailable,
    executor: new ToolExecutor({
      registry,
      unavailable,
      middlewares: options.middlewares,
      bundle: { rootDir: bundle.rootDir, libraries: bundle.libraries ?? [] },
      permissions: new PermissionPolicy(agent?.spec.permissions, {
        allowAllRegistryDirectCalls: agent?.spec.policy?.allowRegistryDirectCalls === true,
      }),
    }),
  };
}
