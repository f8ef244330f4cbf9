import { describe, expect, test } from 'bun:test';
import type { Bundle, Resource } from '../config/resources.ts';
import { agentCatalog, callableAgents, checkTarget, resolveSwarm } from './swarm-topology.ts';

const location = { file: 'goondan.yaml', line: 1, column: 1, baseDir: '/tmp' };

function bundleOf(resources: Omit<Resource, 'apiVersion' | 'location'>[]): Bundle {
  return {
    rootDir: '/tmp',
    resources: new Map(
      resources.map((resource) => [
        `${resource.kind}/${resource.metadata.name}`,
        { apiVersion: 'goondan.ai/v1', location, ...resource } as Resource,
      ]),
    ),
  };
}

const agent = (name: string, spec: object = {}) => ({ kind: 'Agent' as const, metadata: { name }, spec });
const team = bundleOf([
  agent('lead', {
    prompt: { system: 'Leads the team.\nMore detail.' },
    tools: [{ ref: 'Tool/agents', config: { allow: ['writer'] } }],
  }),
  agent('writer', { prompt: { system: 'Writes.' } }),
  agent('critic'),
  agent('stranger'),
  {
    kind: 'Swarm',
    metadata: { name: 'team' },
    spec: { entryAgent: 'Agent/lead', agents: ['Agent/lead', 'Agent/writer', 'Agent/critic'], instanceKey: 'main' },
  },
] as never);

describe('swarm topology', () => {
  test('resolves the Swarm: entry agent, members, instance key; null without one', () => {
    expect(resolveSwarm(team)).toEqual({
      name: 'team',
      entryAgent: 'lead',
      agents: ['lead', 'writer', 'critic'],
      instanceKey: 'main',
    });
    expect(resolveSwarm(bundleOf([agent('solo')] as never))).toBeNull();
    expect(() => resolveSwarm(team, 'other')).toThrow("No Swarm named 'other'");
  });

  test('callable agents: the members, narrowed by Tool/agents config.allow', () => {
    const topology = resolveSwarm(team)!;
    expect(callableAgents(team, topology, 'lead')).toEqual(['writer']);
    expect(callableAgents(team, topology, 'writer')).toEqual(['lead', 'writer', 'critic']);
  });

  test('checkTarget: unknown agents and agents one may not call are different codes', () => {
    const topology = resolveSwarm(team)!;
    const check = (from: string | null, target: string) => () => checkTarget({ bundle: team, topology, from, target });
    expect(check('writer', 'nobody')).toThrow(expect.objectContaining({ code: 'E_AGENT_UNKNOWN' }));
    expect(check('writer', 'stranger')).toThrow(expect.objectContaining({ code: 'E_AGENT_NOT_CALLABLE' }));
    expect(check('lead', 'critic')).toThrow(/config.allow of 'lead' does not list it/);
    expect(check(null, 'critic')).not.toThrow();
  });

  test('the catalog names each callable agent with the first line of its prompt', () => {
    expect(agentCatalog(team, resolveSwarm(team)!, 'writer')).toEqual([
      { name: 'lead', description: 'Leads the team.', entry: true },
      { name: 'writer', description: 'Writes.', entry: false },
      { name: 'critic', entry: false },
    ]);
  });
});
