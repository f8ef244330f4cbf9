import type { AgentInstance, AgentResource, Bundle, SwarmResource, TurnObserver } from '@goondan/core';
import { GoondanError, openAgentInstance, parseObjectRef, selectAgent } from '@goondan/core/session';
import { printProblems } from './commands/validate.ts';
import { openBundle } from './open-bundle.ts';
import { stderrLogger } from './stderr-logger.ts';
import { useColor } from './terminal.ts';

/** The agent a run targets: --agent, else the Swarm's entryAgent, else the only Agent. */
export function chooseAgent(bundle: Bundle, name: string | undefined): AgentResource {
  if (name === undefined) {
    const swarm = [...bundle.resources.values()].find(
      (resource): resource is SwarmResource => resource.kind === 'Swarm',
    );
    const entry = swarm ? parseObjectRef(swarm.spec.entryAgent)?.name : undefined;
    if (entry) return selectAgent(bundle, entry)!;
  }
  const agent = selectAgent(bundle, name);
  if (!agent)
    throw new GoondanError('E_REF_UNRESOLVED', 'The bundle declares no Agent to run.', {
      suggestion: 'Add an Agent resource.',
    });
  return agent;
}

/** Loads the bundle and opens the agent instance a command acts on; null (problems printed) when invalid. */
export async function openInstanceFromFlags(flags: {
  bundle?: string;
  agent?: string;
  instance?: string;
  observer?: TurnObserver;
}): Promise<{ instance: AgentInstance; bundle: Bundle; agent: AgentResource } | null> {
  const opened = await openBundle(flags.bundle);
  if (!opened.bundle) {
    printProblems(opened.dir, opened.problems, useColor(process.stderr));
    return null;
  }
  const agent = chooseAgent(opened.bundle, flags.agent);
  const instance = await openAgentInstance({
    bundle: opened.bundle,
    handlers: opened.handlers,
    agent,
    instanceKey: flags.instance ?? 'default',
    observer: flags.observer,
    logger: stderrLogger,
  });
  return { instance, bundle: opened.bundle, agent };
}
