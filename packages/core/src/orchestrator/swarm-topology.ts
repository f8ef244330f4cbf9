import { parseObjectRef, parseRefEntry } from '../config/object-ref.ts';
import type { AgentResource, Bundle, SwarmResource, ToolResource } from '../config/resources.ts';
import { GoondanError } from '../errors/goondan-error.ts';
import { quotedValue } from '../errors/quoted-value.ts';
import type { AgentCatalogEntry } from './agents-runtime.ts';

/** The name of the base Tool that carries inter-agent calls; its `config.allow` narrows whom an agent may call. */
export const AGENTS_TOOL = 'agents';

/** What the orchestrator needs of a Swarm resource (DESIGN.md §2): who starts, who belongs, which instance. */
export interface SwarmTopology {
  name: string;
  entryAgent: string;
  /** Member agents, in declaration order. */
  agents: string[];
  /** spec.instanceKey: the instance key of a run unless --instance says otherwise. */
  instanceKey?: string;
}

function swarms(bundle: Bundle): SwarmResource[] {
  return [...bundle.resources.values()].filter((resource): resource is SwarmResource => resource.kind === 'Swarm');
}

/** The Swarm named `name`, else the only one; null when the bundle has none (single-agent in-process path). */
export function resolveSwarm(bundle: Bundle, name?: string): SwarmTopology | null {
  const all = swarms(bundle);
  const swarm = name === undefined ? all[0] : all.find((candidate) => candidate.metadata.name === name);
  if (!swarm) {
    if (name === undefined) return null;
    const known = all.map((candidate) => candidate.metadata.name).join(', ') || '(none)';
    throw new GoondanError('E_REF_UNRESOLVED', `No Swarm named ${quotedValue(name)} in the bundle. Swarms: ${known}.`);
  }
  if (name === undefined && all.length > 1) {
    throw new GoondanError(
      'E_REF_UNRESOLVED',
      `The bundle has ${all.length} Swarms (${all.map((candidate) => candidate.metadata.name).join(', ')}); choose one with --swarm.`,
      { suggestion: 'Pass --swarm NAME.' },
    );
  }
  const agents = swarm.spec.agents.map((ref) => parseObjectRef(ref)?.name).filter((agent) => agent !== undefined);
  return {
    name: swarm.metadata.name,
    entryAgent: parseObjectRef(swarm.spec.entryAgent)?.name ?? agents[0] ?? '',
    agents,
    ...(swarm.spec.instanceKey ? { instanceKey: swarm.spec.instanceKey } : {}),
  };
}

function agentResource(bundle: Bundle, name: string): AgentResource | undefined {
  const resource = bundle.resources.get(`Agent/${name}`);
  return resource?.kind === 'Agent' ? resource : undefined;
}

/** `config.allow` of Tool/agents for this agent (the Tool's config with the Agent's per-tool config over it). */
function allowList(bundle: Bundle, agent: AgentResource): string[] | null {
  const tool = bundle.resources.get(`Tool/${AGENTS_TOOL}`) as ToolResource | undefined;
  let allow: unknown = tool?.spec.config?.allow;
  for (const entry of agent.spec.tools ?? []) {
    const parsed = parseRefEntry(entry);
    if (parsed?.ref.name === AGENTS_TOOL && parsed.config?.allow !== undefined) allow = parsed.config.allow;
  }
  return Array.isArray(allow) ? allow.filter((name): name is string => typeof name === 'string') : null;
}

/**
 * Answers of callableAgents by bundle, then caller: every message an agent sends is checked against them, and a
 * loaded bundle does not change (a reload brings a new Bundle object).
 */
const callableCache = new WeakMap<Bundle, Map<string, { topology: SwarmTopology; agents: readonly string[] }>>();

/** The agents `from` may address: the Swarm's members, narrowed by its Tool/agents `config.allow` when given. */
export function callableAgents(bundle: Bundle, topology: SwarmTopology, from: string): string[] {
  return [...callableOf(bundle, topology, from)];
}

function callableOf(bundle: Bundle, topology: SwarmTopology, from: string): readonly string[] {
  let byCaller = callableCache.get(bundle);
  const cached = byCaller?.get(from);
  if (cached?.topology === topology) return cached.agents;
  const agents = findCallableAgents(bundle, topology, from);
  if (!byCaller) {
    byCaller = new Map();
    callableCache.set(bundle, byCaller);
  }
  byCaller.set(from, { topology, agents });
  return agents;
}

function findCallableAgents(bundle: Bundle, topology: SwarmTopology, from: string): string[] {
  const caller = agentResource(bundle, from);
  const allow = caller ? allowList(bundle, caller) : null;
  return topology.agents.filter((agent) => allow === null || allow.includes(agent));
}

/**
 * Throws E_AGENT_UNKNOWN when `target` is no Agent of the bundle, E_AGENT_NOT_CALLABLE when it is one but `from`
 * may not call it. `from` null is the user (the CLI), who may address any member of the Swarm.
 */
export function checkTarget(options: { bundle: Bundle; topology: SwarmTopology; from: string | null; target: string }) {
  const { bundle, topology, from, target } = options;
  const callable = from === null ? topology.agents : callableOf(bundle, topology, from);
  if (!agentResource(bundle, target)) {
    throw new GoondanError(
      'E_AGENT_UNKNOWN',
      `No agent named ${quotedValue(target)}. Agents ${from === null ? 'of the swarm' : `'${from}' may call`}: ${callable.join(', ') || '(none)'}.`,
    );
  }
  if (!callable.includes(target)) {
    const why = topology.agents.includes(target)
      ? `the Tool/agents config.allow of '${from}' does not list it`
      : `it is not a member of Swarm '${topology.name}'`;
    throw new GoondanError(
      'E_AGENT_NOT_CALLABLE',
      `Agent '${from ?? 'user'}' may not call '${target}': ${why}. Callable: ${callable.join(', ') || '(none)'}.`,
    );
  }
}

/** agents__catalog: whom `from` may call, with a one-line description from each agent's system prompt. */
export function agentCatalog(bundle: Bundle, topology: SwarmTopology, from: string): AgentCatalogEntry[] {
  return callableAgents(bundle, topology, from).map((name) => {
    const system = agentResource(bundle, name)?.spec.prompt?.system?.trim();
    const firstLine = system?.split('\n')[0];
    const description = firstLine && firstLine.length > 160 ? `${firstLine.slice(0, 159)}…` : firstLine;
    return { name, ...(description ? { description } : {}), entry: name === topology.entryAgent };
  });
}
