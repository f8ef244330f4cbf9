import {
  type AgentResource,
  API_VERSION,
  type Bundle,
  GoondanError,
  resolveSwarm,
  type SwarmResource,
  type SwarmTopology,
} from '@goondan/core';

/** Name of the Swarm `gdn serve` adds to a bundle that declares none. */
export const IMPLICIT_SWARM = 'serve';

/**
 * The bundle and Swarm `gdn serve` runs: the bundle's Swarm (or `swarm`), else an implicit Swarm of every Agent of
 * the bundle, so a single-agent bundle is served by the Orchestrator like any other (one process per instance).
 * The implicit Swarm travels with the bundle to the agent processes, which resolve it by name.
 */
export function servedSwarm(bundle: Bundle, swarm?: string): { bundle: Bundle; topology: SwarmTopology } {
  const declared = resolveSwarm(bundle, swarm);
  if (declared) return { bundle, topology: declared };
  const agents = [...bundle.resources.values()].filter(
    (resource): resource is AgentResource => resource.kind === 'Agent' && resource.library === undefined,
  );
  if (agents.length === 0) {
    throw new GoondanError('E_AGENT_UNKNOWN', `The bundle in ${bundle.rootDir} declares no Agent to serve.`);
  }
  const resource: SwarmResource = {
    apiVersion: API_VERSION,
    kind: 'Swarm',
    metadata: { name: IMPLICIT_SWARM },
    spec: {
      entryAgent: { kind: 'Agent', name: agents[0]!.metadata.name },
      agents: agents.map((agent) => ({ kind: 'Agent', name: agent.metadata.name })),
    },
    location: { ...agents[0]!.location },
  };
  const resources = new Map(bundle.resources);
  resources.set(`Swarm/${IMPLICIT_SWARM}`, resource);
  const served = { ...bundle, resources };
  const topology = resolveSwarm(served, IMPLICIT_SWARM);
  if (!topology) throw new GoondanError('E_REF_UNRESOLVED', 'The implicit Swarm could not be resolved.');
  return { bundle: served, topology };
}
