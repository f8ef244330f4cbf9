import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  type AgentEvent,
  type AgentNotification,
  type ApprovalRecord,
  type Bundle,
  type ConnectionResource,
  type ConnectorResource,
  GoondanError,
  newId,
  parseObjectRef,
  resolveValueSource,
  type SwarmTopology,
  useOAuthService,
  type ValueSource,
} from '@goondan/core';
import type { ChannelLogger, ChannelOrchestrator } from '../../extensions/telegram/channel-types.ts';
import { checkConnectorEvent } from './check-connector-event.ts';
import { CONNECTION_REQUESTER, checkConnectorTokenRequest, connectionOfRequester } from './connector-token-request.ts';
import type { ConnectorEvent, EventRefusal } from './connector-types.ts';
import { matchIngressRule } from './match-ingress-rule.ts';
import { type SupervisedConnector, superviseConnector } from './supervise-connector.ts';
import { checkTelegramPollers, isTelegramConnector, type TelegramPoller } from './telegram-pollers.ts';

/** A Connection of the served Swarm, with its connector process. */
export interface RunningConnection {
  name: string;
  connector: string;
  process: SupervisedConnector;
}

/** What a reload did to the Connections, by name. */
export interface ConnectionsReload {
  started: string[];
  restarted: string[];
  stopped: string[];
}

export interface BundleConnections {
  /** The Connections running now. */
  running(): readonly RunningConnection[];
  /** Feed every notification of the Orchestrator here: approvals of turns a connector's event started go to it. */
  notify(notification: AgentNotification): void;
  /**
   * An OAuth grant's auth.granted: told to the connector whose Connection asked (true), or false when an agent
   * instance asked (not a Connection).
   */
  granted(requester: { agentName: string; instanceKey: string }, event: AgentEvent): boolean;
  /**
   * Takes a reloaded bundle: restarts the Connections whose Connection or Connector changed (its documents, the
   * text of its entry module, its resolved secrets and config), starts added ones, stops removed ones. A Connection
   * that cannot start (an unset variable, a second poller of a Telegram token) is logged and left as it was.
   */
  reload(bundle: Bundle, topology: SwarmTopology): Promise<ConnectionsReload>;
  /**
   * Shutdown, first step: connectors are told to take no more input, and events that arrive from now on are refused
   * (E_AGENT_SHUTTING_DOWN, logged), so their connectors leave them with the platform; turns already routed go on.
   */
  quiesce(): void;
  /** Waits for the replies of turns already routed (the Orchestrator has drained), then stops every connector. */
  stop(): Promise<void>;
}

/** The Connections that feed `topology`: those naming its Swarm, and those naming none. */
export function connectionsOf(bundle: Bundle, topology: SwarmTopology): ConnectionResource[] {
  return [...bundle.resources.values()].filter(
    (resource): resource is ConnectionResource =>
      resource.kind === 'Connection' &&
      (resource.spec.swarmRef === undefined || parseObjectRef(resource.spec.swarmRef)?.name === topology.name),
  );
}

/** How the host's settings shape the Connections of a bundle (the Telegram bot the assistant's tools stored). */
export interface ConnectionSettings {
  /** The environment ValueSources resolve in. */
  env?: Record<string, string | undefined>;
  /** False: Connections of @goondan/base's Telegram connector are not started (telegram__enable turned the bot off). */
  startTelegram?: boolean;
}

interface Prepared {
  connection: ConnectionResource;
  connector: ConnectorResource;
  entry: string;
  secrets: Record<string, string>;
  config: Record<string, string>;
  fingerprint: string;
}

interface Live extends RunningConnection {
  fingerprint: string;
  /** Approvals shown to this connector, by id, with the event whose turn asked: only those may it answer. */
  shown: Map<string, { record: ApprovalRecord; event: ConnectorEvent }>;
}

/** A turn a connector's event started: approvals carrying its traceId go back to that connector. */
interface Turn {
  live: Live;
  event: ConnectorEvent;
}

function resolveMap(map: Record<string, ValueSource> | undefined, env?: Record<string, string | undefined>) {
  const resolved: Record<string, string> = {};
  for (const [key, source] of Object.entries(map ?? {})) resolved[key] = resolveValueSource(source, env);
  return resolved;
}

function entryText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** Resolves one Connection: its Connector, secrets and config (throws E_REF_UNRESOLVED, E_VALUE_SOURCE_ENV). */
function prepare(bundle: Bundle, connection: ConnectionResource, env?: Record<string, string | undefined>): Prepared {
  const ref = parseObjectRef(connection.spec.connectorRef);
  const connector = ref ? (bundle.resources.get(`Connector/${ref.name}`) as ConnectorResource | undefined) : undefined;
  if (!connector) {
    throw new GoondanError(
      'E_REF_UNRESOLVED',
      `Connection ${connection.metadata.name}: its Connector is not in the bundle.`,
    );
  }
  const entry = resolve(connector.location.baseDir, connector.spec.entry);
  const secrets = resolveMap(connection.spec.secrets, env);
  const config = resolveMap(connection.spec.config, env);
  // Secrets enter only as a digest: a token stored anew (telegram__set_token) restarts its connector at a reload.
  const fingerprint = Bun.hash(
    JSON.stringify([connection.spec, connector.spec, entry, entryText(entry), secrets, config]),
  ).toString(16);
  return { connection, connector, entry, secrets, config, fingerprint };
}

/**
 * Starts a supervised process for the Connector of every Connection of the served Swarm (docs/connectors.md) and
 * routes what they emit: each event is checked against the Connector's declared events, routed by the ingress
 * rules (first match wins) to an agent instance as a `user.message` from `user:<connection>`, and the turn's reply
 * goes back to the connector, as do the approvals its turn waits for (docs/connectors.md#approvals). Secrets and
 * config are resolved here first: an unset variable throws E_VALUE_SOURCE_ENV and nothing is started; so does a
 * Telegram token polled twice (E_CHANNEL_CONFIG_INVALID, counting `otherPollers`).
 */
export async function startBundleConnections(options: {
  bundle: Bundle;
  topology: SwarmTopology;
  orchestrator: ChannelOrchestrator;
  logger: ChannelLogger;
  defaultInstanceKey: string;
  /** The host's settings for a bundle, asked again at each reload. */
  settings?: (bundle: Bundle, topology: SwarmTopology) => ConnectionSettings;
  /** Telegram bots polled by others (Extension/telegram channels): a Connection may not poll them too. */
  otherPollers?: readonly TelegramPoller[];
}): Promise<BundleConnections> {
  const { orchestrator, logger } = options;
  let topology = options.topology;
  let accepting = true;
  const live = new Map<string, Live>();
  const turns = new Map<string, Turn>();
  const traces = new Map<string, Turn>();
  const routed = new Set<Promise<void>>();

  /** The Connections to run for a bundle, resolved; `onError` decides whether one that fails stops everything. */
  const plan = (bundle: Bundle, served: SwarmTopology, onError: (name: string, thrown: unknown) => void) => {
    const settings = options.settings?.(bundle, served) ?? {};
    const planned: Prepared[] = [];
    for (const connection of connectionsOf(bundle, served)) {
      try {
        const prepared = prepare(bundle, connection, settings.env);
        if (settings.startTelegram === false && isTelegramConnector(prepared.connector)) {
          logger.warn(
            `[connection ${connection.metadata.name}] not started: the Telegram bot is turned off (telegram__enable)`,
          );
          continue;
        }
        planned.push(prepared);
      } catch (thrown) {
        onError(connection.metadata.name, thrown);
      }
    }
    const pollers = planned
      .filter((item) => isTelegramConnector(item.connector) && item.secrets.TELEGRAM_BOT_TOKEN)
      .map((item) => ({
        owner: `Connection '${item.connection.metadata.name}'`,
        token: item.secrets.TELEGRAM_BOT_TOKEN!,
      }));
    checkTelegramPollers([...(options.otherPollers ?? []), ...pollers]);
    return planned;
  };

  const launch = ({ connection, connector, entry, secrets, config, fingerprint }: Prepared): Live => {
    const name = connection.metadata.name;
    const events = connector.spec.events ?? null;
    const rules = connection.spec.ingress?.rules ?? [{}];
    const label = `[connection ${name}]`;
    // Answered at once (the connector's emit waits for it): taken, even when no rule routes it (a platform that
    // delivered it again would get the same answer), or refused.
    const route = (id: string, raw: ConnectorEvent): EventRefusal | undefined => {
      let event: ConnectorEvent;
      try {
        event = checkConnectorEvent(raw, events);
      } catch (thrown) {
        logger.warn(`${label} E_CONNECTOR_EVENT_INVALID ${(thrown as Error).message}; dropped`);
        return { code: 'E_CONNECTOR_EVENT_INVALID', message: (thrown as Error).message };
      }
      if (!accepting) {
        logger.warn(
          `${label} E_AGENT_SHUTTING_DOWN event ${event.name} arrived during shutdown; refused (left with the platform)`,
        );
        return { code: 'E_AGENT_SHUTTING_DOWN', message: 'gdn serve is shutting down' };
      }
      const target = matchIngressRule({
        rules,
        event,
        entryAgent: topology.entryAgent,
        defaultInstanceKey: options.defaultInstanceKey,
      });
      if (!target) {
        logger.warn(`${label} E_CONNECTION_NO_ROUTE event ${event.name} matched no ingress rule; dropped`);
        return undefined;
      }
      const eventId = newId('evt');
      turns.set(eventId, { live: self, event });
      const turn = orchestrator
        .request({
          id: eventId,
          input: event.message?.text ?? '',
          target: target.agent,
          instanceKey: target.instanceKey,
          source: { kind: 'user', name },
          ...(target.userId === undefined ? {} : { auth: { userId: target.userId } }),
          data: {
            connector: {
              connection: name,
              connector: connector.metadata.name,
              event: event.name,
              properties: event.properties ?? {},
            },
          },
        })
        .then((result) =>
          self.process.reply(id, {
            event,
            text: result.text,
            status: result.status,
            agent: target.agent,
            instanceKey: target.instanceKey,
          }),
        )
        .catch((thrown) => {
          const code = thrown instanceof GoondanError ? thrown.code : 'E_AGENT_CRASHED';
          logger.error(
            `${label} ${code} event ${event.name} for ${target.agent}/${target.instanceKey} was not answered: ${(thrown as Error).message}`,
          );
        })
        .finally(() => {
          routed.delete(turn);
          turns.delete(eventId);
          for (const [traceId, entry] of traces)
            if (entry.live === self && entry.event === event) traces.delete(traceId);
        });
      routed.add(turn);
      return undefined;
    };
    const self: Live = {
      name,
      connector: connector.metadata.name,
      fingerprint,
      shown: new Map(),
      process: superviseConnector({
        start: { type: 'start', connection: name, connector: connector.metadata.name, entry, events, secrets, config },
        cwd: options.bundle.rootDir,
        onEvent: route,
        // Tokens in the Connection's name (its connector is no agent instance); the host's OAuth service answers.
        onTokenRequest: (request) => {
          const checked = checkConnectorTokenRequest(request);
          return useOAuthService().getAccessToken({
            oauthAppRef: checked.oauthAppRef,
            ...(checked.scopes ? { scopes: checked.scopes } : {}),
            ...(checked.minTtlSeconds === undefined ? {} : { minTtlSeconds: checked.minTtlSeconds }),
            caller: {
              agentName: `${CONNECTION_REQUESTER}${name}`,
              instanceKey: name,
              ...(checked.userId ? { userId: checked.userId } : {}),
            },
          });
        },
        onAnswer: (id, answer) => {
          const record = self.shown.get(id)?.record;
          if (!record) return false;
          return orchestrator.answerApproval({ agent: record.agent, instanceKey: record.instanceKey, id, answer });
        },
        log: (line) => logger.error(line),
      }),
    };
    return self;
  };

  for (const prepared of plan(options.bundle, topology, (_name, thrown) => {
    throw thrown;
  })) {
    live.set(prepared.connection.metadata.name, launch(prepared));
  }

  return {
    running: () => [...live.values()],
    granted(requester, event) {
      const name = connectionOfRequester(requester);
      if (name === null) return false;
      const oauthApp = (event.data as { oauthApp?: unknown } | undefined)?.oauthApp;
      if (typeof oauthApp === 'string') live.get(name)?.process.granted(oauthApp);
      return true;
    },
    notify({ event }) {
      const data = (event.data ?? {}) as Record<string, unknown>;
      if (event.type === 'runtime.turn.start') {
        const turn = turns.get(String(data.eventId));
        if (turn && typeof data.traceId === 'string') traces.set(data.traceId, turn);
        return;
      }
      if (event.type !== 'runtime.approval.requested' && event.type !== 'runtime.approval.resolved') return;
      const record = data as unknown as ApprovalRecord;
      if (event.type === 'runtime.approval.requested') {
        const turn = record.traceId ? traces.get(record.traceId) : undefined;
        if (!turn) return;
        turn.live.shown.set(record.id, { record, event: turn.event });
        turn.live.process.approval({ phase: 'requested', record, event: turn.event });
        return;
      }
      for (const connection of live.values()) {
        const shown = connection.shown.get(record.id);
        if (!shown) continue;
        connection.shown.delete(record.id);
        connection.process.approval({ phase: 'resolved', record, event: shown.event });
      }
    },
    async reload(bundle, served) {
      topology = served;
      const result: ConnectionsReload = { started: [], restarted: [], stopped: [] };
      const failed = new Set<string>();
      let planned: Prepared[];
      try {
        planned = plan(bundle, served, (name, thrown) => {
          failed.add(name);
          logger.error(`[connection ${name}] not reloaded: ${(thrown as Error).message}`);
        });
      } catch (thrown) {
        logger.error(`[serve] connections not reloaded: ${(thrown as Error).message}`);
        return result;
      }
      const wanted = new Map(planned.map((item) => [item.connection.metadata.name, item]));
      const stops: Promise<void>[] = [];
      for (const [name, connection] of live) {
        if (failed.has(name)) continue;
        const next = wanted.get(name);
        if (next && next.fingerprint === connection.fingerprint) continue;
        live.delete(name);
        stops.push(connection.process.stop());
        (next ? result.restarted : result.stopped).push(name);
      }
      // A restarted connector's old process has let go (a port, a poll) before the new one starts.
      await Promise.all(stops);
      for (const [name, item] of wanted) {
        if (live.has(name)) continue;
        if (!result.restarted.includes(name)) result.started.push(name);
        const started = launch(item);
        if (!accepting) started.process.quiesce();
        live.set(name, started);
      }
      return result;
    },
    quiesce() {
      accepting = false;
      if (live.size === 0) return;
      for (const connection of live.values()) connection.process.quiesce();
      logger.warn(
        '[serve] connections take no more events: what arrives now is left with its platform, which delivers it again',
      );
    },
    async stop() {
      accepting = false;
      await Promise.allSettled([...routed]);
      await Promise.all([...live.values()].map((connection) => connection.process.stop()));
    },
  };
}
