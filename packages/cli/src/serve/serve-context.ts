import { type Bundle, GoondanError, type Orchestrator, type Scheduler, type SwarmTopology } from '@goondan/core';
import type { TurnStreams } from './turn-streams.ts';

/** The host's scheduler, as /healthz reports it. */
export type ServedScheduler = Pick<Scheduler, 'count'>;

/** What the HTTP endpoints of `gdn serve` reach: the running swarm and what the host owns beside it. */
export interface ServeContext {
  orchestrator: Orchestrator;
  streams: TurnStreams;
  /** The bundle and Swarm being served (they change on reload). */
  bundle(): Bundle;
  topology(): SwarmTopology;
  /** Instance key when a request names none. */
  defaultInstance: string;
  startedAt: number;
  scheduler: ServedScheduler | null;
}

/** Throws E_AGENT_UNKNOWN (HTTP 404) unless `name` is an agent the server runs. */
export function checkServedAgent(context: ServeContext, name: string): string {
  const agents = context.topology().agents;
  if (!agents.includes(name)) {
    throw new GoondanError(
      'E_AGENT_UNKNOWN',
      `No agent named '${name}' is served here. Agents: ${agents.join(', ')}.`,
      {
        suggestion: 'Use an agent name from GET /v1/models.',
      },
    );
  }
  return name;
}
