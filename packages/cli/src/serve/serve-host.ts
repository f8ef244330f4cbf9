import {
  type AgentEvent,
  type AgentNotification,
  type Bundle,
  DEFAULT_GRACE_PERIOD_MS,
  Orchestrator,
  type ProcessLifecycleEvent,
  type SwarmTopology,
  type SwarmTransport,
} from '@goondan/core';
import { consoleRoutes } from '../console/console-routes.ts';
import { libraryBundleDirs } from '../library-bundles.ts';
import { openBundleOAuth, sendGrant } from '../open-bundle-oauth.ts';
import { writeAgentOutput } from '../terminal.ts';
import { toListenError } from '../to-listen-error.ts';
import { checkListenAddress } from './check-bearer-token.ts';
import { BUN_MAX_REQUEST_BODY_SIZE } from './read-json-body.ts';
import { createServeApi, type Route } from './serve-api.ts';
import { drainingHeaders, refusedWhileDraining, type ServeContext, type ServedScheduler } from './serve-context.ts';
import { serveRoutes } from './serve-routes.ts';
import { servedSwarm } from './served-swarm.ts';
import { TurnStreams } from './turn-streams.ts';

/** A part the host starts beside the orchestrator (scheduler, channels) and stops before it. */
export interface HostPart {
  /** Sees every notification of the agent processes (approvals, text). */
  notify?(notification: AgentNotification): void;
  /** Takes a reloaded bundle (--watch, an activated changeset); not awaited by the reload. */
  reload?(bundle: Bundle, topology: SwarmTopology): Promise<void>;
  /** At shutdown, before the orchestrator drains. */
  stop(): Promise<void>;
  /**
   * At shutdown, once the orchestrator has drained (every turn ended, or the deadline passed): for parts that hand
   * turns their replies (connectors), whose `stop` only tells them to take nothing new.
   */
  afterDrain?(): Promise<void>;
  scheduler?: ServedScheduler;
  routes?: Route[];
  /**
   * An authorization this part asked for was granted (`requester` is not an agent instance: a Connection's
   * connector); true when the part took it.
   */
  oauthGranted?(requester: { agentName: string; instanceKey: string }, event: AgentEvent): boolean;
}

export interface ServeHostOptions {
  bundle: Bundle;
  swarm?: string;
  instanceKey?: string;
  hostname: string;
  port: number;
  token?: string;
  /** Origins of web pages allowed to call besides loopback ones (CORS), or `*`. */
  allowedOrigins?: string[];
  gracePeriodMs?: number;
  /**
   * At shutdown, the least time the listener stays open answering 503 `draining` (within the grace period), even
   * with nothing running: a load balancer that polls /healthz sees the drain before connections are refused.
   */
  drainDelayMs?: number;
  /** An agent process idle this long is stopped, and started again by its next event (0: never). */
  idleStopMs?: number;
  /** At most this many agent processes at once; an instance beyond it waits for a place (0 or absent: no limit). */
  maxProcesses?: number;
  /** Where agent processes run (default: here, over Bun IPC; `--nats`: on gdn workers). */
  transport?: SwarmTransport;
  log: (line: string) => void;
  /** Starts the host's parts once the orchestrator runs (the scheduler, the bundle's channels). */
  parts?: (host: { orchestrator: Orchestrator; bundle: Bundle; topology: () => SwarmTopology }) => Promise<HostPart[]>;
}

export interface ServeHost {
  url: string;
  /** What running turns get at shutdown to finish (and accepted events to be handled), in ms. */
  gracePeriodMs: number;
  orchestrator: Orchestrator;
  context: ServeContext;
  /** Takes a reloaded bundle: restarts the agents whose resources changed. */
  serve(bundle: Bundle): { bundle: Bundle; topology: SwarmTopology };
  /**
   * Stops taking requests, stops the parts, lets accepted events be handled and running turns finish within the
   * grace period (counted from this call; what is still running then is killed), then closes.
   */
  stop(reason: string): Promise<void>;
  /** Kills the agent processes and closes every connection now (a second signal); a `stop` under way ends soon. */
  kill(): void;
}

/** How long the end waits for clients to close their connections after the last answer (within the grace). */
const CLOSE_WAIT_MS = 2_000;
/** ... but at least this long, so the answers of turns that ended at the deadline are written out. */
const MIN_CLOSE_WAIT_MS = 250;

function describeLifecycle(event: ProcessLifecycleEvent): string | null {
  const who = `${event.agent}/${event.instanceKey}`;
  if (event.type === 'crashed') return `[${who}] ${event.message}`;
  if (event.type === 'stopped' && event.killed) return `[${who}] did not stop within the grace period; killed`;
  return null;
}

/**
 * `gdn serve`'s host: an Orchestrator running the bundle's agents (one process per instance), the parts it owns
 * (scheduler, channels) and the HTTP API. A token is required to listen beyond loopback.
 */
export async function startServeHost(options: ServeHostOptions): Promise<ServeHost> {
  checkListenAddress(options.hostname, options.token);
  let current = servedSwarm(options.bundle, options.swarm);
  // The port first: a port in use (or an address not of this machine) fails the start before the scheduler fires
  // or a channel takes a message. Requests that arrive while the parts start wait for them.
  const api = Promise.withResolvers<(request: Request) => Promise<Response>>();
  const server = listen({
    hostname: options.hostname,
    port: options.port,
    // A turn may take minutes before its reply (or between two streamed chunks): no idle cut-off.
    idleTimeout: 0,
    // Bun's own bound (it closes the request) sits above ours, so an oversized body gets our coded 413.
    maxRequestBodySize: BUN_MAX_REQUEST_BODY_SIZE,
    fetch: async (request) => whileDraining(await (await api.promise)(request)),
  });
  const streams = new TurnStreams();
  // Every 503 while the host drains (a request that was waiting for its instance and was not started) says when to
  // try again, unless it must not be sent again (a turn killed at the end of the grace period after it started).
  const whileDraining = (response: Response): Response => {
    const draining = context.draining;
    if (!draining || response.status !== 503 || response.headers.has('retry-after')) return response;
    if (response.headers.get('x-should-retry') === 'false') return response;
    for (const [name, value] of Object.entries(drainingHeaders(draining))) response.headers.set(name, value);
    return response;
  };
  let parts: HostPart[] = [];
  // The bundle's OAuth host (docs/oauth.md#one-writer), when it declares an OAuthApp: this process owns the store,
  // serves the loopback callbacks, and answers agent processes' and connectors' token requests. A grant's
  // auth.granted goes to the instance (or connector) that asked.
  const oauth = await openBundleOAuth(current.bundle, {
    storeReopenedLine: (path) =>
      `[serve] oauth: ${path} was deleted or replaced while serving; opened it again at its path (grants it held are gone: gdn auth login again; new ones are stored there)`,
    onGranted: (event, requester) => {
      if (!parts.some((part) => part.oauthGranted?.(requester, event) === true))
        sendGrant(orchestrator, event, requester);
    },
  }).catch(async (thrown) => {
    await server.stop(true);
    throw thrown;
  });
  const oauthApps = oauthAppsOf(current.bundle);
  const orchestrator = new Orchestrator({
    ...(oauth ? { oauth: oauth.host } : {}),
    bundle: current.bundle,
    topology: current.topology,
    instanceKey: options.instanceKey ?? current.topology.instanceKey ?? 'default',
    libraries: [...libraryBundleDirs],
    observe: true,
    ...(options.gracePeriodMs === undefined ? {} : { gracePeriodMs: options.gracePeriodMs }),
    ...(options.idleStopMs ? { idleStopMs: options.idleStopMs } : {}),
    ...(options.maxProcesses ? { maxProcesses: options.maxProcesses } : {}),
    ...(options.transport ? { transport: options.transport } : {}),
    onNotification: (notification) => {
      streams.notify(notification);
      for (const part of parts) part.notify?.(notification);
    },
    // What agent processes write (their tools', extensions' and model's lines): no escape sequence of theirs reaches
    // the host's terminal or journal.
    onOutput: writeAgentOutput,
    onLifecycle: (event) => {
      if (event.type === 'crashed' || event.type === 'stopped') streams.processEnded(event.agent, event.instanceKey);
      const line = describeLifecycle(event);
      if (line) options.log(line);
    },
  });
  const context: ServeContext = {
    orchestrator,
    streams,
    bundle: () => current.bundle,
    topology: () => current.topology,
    defaultInstance: options.instanceKey ?? current.topology.instanceKey ?? 'default',
    startedAt: Date.now(),
    scheduler: null,
    draining: null,
  };
  try {
    parts = options.parts
      ? await options.parts({ orchestrator, bundle: current.bundle, topology: () => current.topology })
      : [];
    context.scheduler = parts.find((part) => part.scheduler)?.scheduler ?? null;
    const routes = serveRoutes(context, [
      // A part's routes (the schedules) are refused while the host drains: the part has stopped by then.
      ...parts.flatMap((part) => part.routes ?? []).map((route) => refusedWhileDraining(context, route)),
      // The web console (docs/console.md) reads the same bundle's state and shows the running processes.
      ...consoleRoutes({
        mode: 'serve',
        rootDir: () => current.bundle.rootDir,
        agents: () => current.topology.agents,
        processes: () => orchestrator.list(),
      }),
    ]);
    api.resolve(
      createServeApi({
        routes,
        allowedOrigins: options.allowedOrigins ?? [],
        ...(options.token ? { token: options.token } : {}),
      }),
    );
  } catch (thrown) {
    api.resolve(async () => new Response('gdn serve could not start', { status: 503 }));
    await server.stop(true);
    await Promise.all(parts.map((part) => part.stop().catch(() => {})));
    await orchestrator.shutdown({ reason: 'gdn serve could not start' });
    await Promise.all(parts.map((part) => part.afterDrain?.().catch(() => {})));
    await oauth?.close();
    throw thrown;
  }
  const gracePeriodMs = options.gracePeriodMs ?? DEFAULT_GRACE_PERIOD_MS;
  let stopping: Promise<void> | null = null;
  const killed = Promise.withResolvers<void>();
  return {
    url: server.url.href.replace(/\/$/, ''),
    gracePeriodMs,
    orchestrator,
    context,
    serve(bundle) {
      current = servedSwarm(bundle, options.swarm);
      if (oauthAppsOf(current.bundle) !== oauthApps) {
        options.log('[serve] OAuthApp resources changed: they take effect when gdn serve starts again');
      }
      for (const part of parts) {
        part.reload?.(current.bundle, current.topology).catch((thrown) => {
          options.log(`[serve] reload of a host part failed: ${(thrown as Error)?.message}`);
        });
      }
      return current;
    },
    stop(reason) {
      stopping ??= (async () => {
        const deadline = Date.now() + gracePeriodMs;
        // Draining (docs/serve.md#draining): the listener stays open while turns finish, so a load balancer or a
        // supervisor can tell it from a dead host: /healthz answers 503 `draining`, new work 503 with Retry-After;
        // requests under way get their answers as their turns end, approvals are still answered.
        context.draining = { reason, since: Date.now(), deadline };
        await Promise.all(parts.map((part) => part.stop().catch(() => {})));
        // One grace period for both the accepted events (an instance that cannot start must not hold the end) and
        // the running turns.
        const report = await orchestrator.shutdown({ reason, drain: true, graceIncludesDrain: true });
        if (report.pendingSends) {
          options.log(
            `[serve] ${report.pendingSends} accepted event(s) not handled within the grace period; they stay stored and are handled at the next start`,
          );
        }
        // Replies of the turns that just ended reach their connectors before those stop.
        await Promise.all(parts.map((part) => part.afterDrain?.().catch(() => {})));
        // --drain-delay: the listener stays open (answering 503 draining) at least this long from the signal.
        const openUntil = Math.min(deadline, (context.draining?.since ?? Date.now()) + (options.drainDelayMs ?? 0));
        if (openUntil > Date.now()) {
          let delay: ReturnType<typeof setTimeout> | undefined;
          await Promise.race([
            killed.promise,
            new Promise((resolve) => (delay = setTimeout(resolve, openUntil - Date.now()))),
          ]);
          clearTimeout(delay);
        }
        // Every turn has ended, so every answer is written: no new connections from now on; idle keep-alive
        // connections are closed after a while.
        const closed = server.stop(false);
        const waitMs = Math.min(CLOSE_WAIT_MS, Math.max(MIN_CLOSE_WAIT_MS, deadline - Date.now()));
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([closed, killed.promise, new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))]);
        clearTimeout(timer);
        await server.stop(true);
        await oauth?.close();
      })();
      return stopping;
    },
    kill() {
      orchestrator.killAll();
      killed.resolve();
      void server.stop(true);
    },
  };
}

/** The bundle's OAuthApp documents, as one string to compare at a reload. */
function oauthAppsOf(bundle: Bundle): string {
  const apps = [...bundle.resources.values()].filter((resource) => resource.kind === 'OAuthApp');
  return JSON.stringify(apps.map((app) => [app.metadata.name, app.spec]));
}

/** Bun.serve, its failure to listen (port in use, an address not of this machine) a coded error. */
function listen(options: Parameters<typeof Bun.serve>[0] & { hostname: string; port: number }) {
  try {
    return Bun.serve(options);
  } catch (thrown) {
    throw toListenError(thrown, options);
  }
}
