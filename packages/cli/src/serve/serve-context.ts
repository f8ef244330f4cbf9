import {
  type Bundle,
  GoondanError,
  type Orchestrator,
  quotedValue,
  type Scheduler,
  type SwarmTopology,
} from '@goondan/core';
import { apiErrorResponse } from './api-error.ts';
import type { Route } from './serve-api.ts';
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
  /** Set when the host starts its graceful stop (SIGTERM): /healthz answers 503, new work is refused. */
  draining: Draining | null;
}

/** The graceful stop under way (docs/serve.md#draining). */
export interface Draining {
  /** What started it: the signal's name (SIGTERM, SIGINT, SIGHUP). */
  reason: string;
  since: number;
  /** When the grace period ends: what is still running then is killed, and the host exits soon after. */
  deadline: number;
}

/**
 * Headers of an answer refusing work while the host drains: when to try again (the seconds left of the grace period,
 * at least 1: by then this host is gone, and another one, or this one restarted, takes it), that an OpenAI client
 * may send it again by itself (nothing ran), and the end of the connection, so a client's next request opens a new
 * one (through a load balancer, to another host).
 */
export function drainingHeaders(draining: Draining): Record<string, string> {
  const seconds = Math.max(1, Math.ceil((draining.deadline - Date.now()) / 1000));
  return { 'retry-after': String(seconds), 'x-should-retry': 'true', connection: 'close' };
}

/** 503 E_AGENT_SHUTTING_DOWN for work the host does not take while it drains (a turn, an event, a schedule). */
export function drainingRefusal(context: ServeContext, draining: Draining): Response {
  const running = context.streams.runningTurns;
  const error = new GoondanError(
    'E_AGENT_SHUTTING_DOWN',
    `gdn serve is shutting down (${draining.reason}) and takes no new work; ${running} running turn(s) are finishing.`,
    {
      suggestion:
        'Nothing was started or stored: send it again after Retry-After seconds (to another gdn serve, or to this one once it has restarted).',
    },
  );
  return apiErrorResponse(error, { headers: drainingHeaders(draining) });
}

/** The route, refused with 503 while the host drains (work it does not take then), else as it is. */
export function refusedWhileDraining(context: ServeContext, route: Route): Route {
  return {
    ...route,
    handle: (request, url, params) =>
      context.draining ? drainingRefusal(context, context.draining) : route.handle(request, url, params),
  };
}

/** Throws E_AGENT_UNKNOWN (HTTP 404) unless `name` is an agent the server runs. */
export function checkServedAgent(context: ServeContext, name: string): string {
  const agents = context.topology().agents;
  if (!agents.includes(name)) {
    throw new GoondanError(
      'E_AGENT_UNKNOWN',
      `No agent named ${quotedValue(name)} is served here. Agents: ${agents.join(', ')}.`,
      {
        suggestion: 'Use an agent name from GET /v1/models.',
      },
    );
  }
  return name;
}
