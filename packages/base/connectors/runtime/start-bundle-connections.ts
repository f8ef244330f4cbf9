import { resolve } from 'node:path';
import {
  type Bundle,
  type ConnectionResource,
  type ConnectorResource,
  GoondanError,
  parseObjectRef,
  resolveValueSource,
  type SwarmTopology,
  type ValueSource,
} from '@goondan/core';
import type { ChannelLogger, ChannelOrchestrator } from '../../extensions/telegram/channel-types.ts';
import { checkConnectorEvent } from './check-connector-event.ts';
import type { ConnectorEvent } from './connector-types.ts';
import { matchIngressRule } from './match-ingress-rule.ts';
import { type SupervisedConnector, superviseConnector } from './supervise-connector.ts';

/** A Connection of the served Swarm, with its connector process. */
export interface RunningConnection {
  name: string;
  connector: string;
  process: SupervisedConnector;
}

export interface BundleConnections {
  connections: readonly RunningConnection[];
  /** Stops every connector process (before the Orchestrator drains: replies of running turns are then dropped). */
  stop(): Promise<void>;
}

function resolveMap(map: Record<string, ValueSource> | undefined, env?: Record<string, string | undefined>) {
  const resolved: Record<string, string> = {};
  for (const [key, source] of Object.entries(map ?? {})) resolved[key] = resolveValueSource(source, env);
  return resolved;
}

/** The Connections that feed `topology`: those naming its Swarm, and those naming none. */
export function connectionsOf(bundle: Bundle, topology: SwarmTopology): ConnectionResource[] {
  return [...bundle.resources.values()].filter(
    (resource): resource is ConnectionResource =>
      resource.kind === 'Connection' &&
      (resource.spec.swarmRef === undefined || parseObjectRef(resource.spec.swarmRef)?.name === topology.name),
  );
}

/**
 * Starts a supervised process for the Connector of every Connection of the served Swarm (docs/connectors.md) and
 * routes what they emit: each event is checked against the Connector's declared events, routed by the ingress
 * rules (first match wins) to an agent instance as a `user.message` from `user:<connection>`, and the turn's reply
 * goes back to the connector. Secrets and config are resolved here first: an unset variable throws
 * E_VALUE_SOURCE_ENV and nothing is started.
 */
export async function startBundleConnections(options: {
  bundle: Bundle;
  topology: SwarmTopology;
  orchestrator: ChannelOrchestrator;
  logger: ChannelLogger;
  defaultInstanceKey: string;
  env?: Record<string, string | undefined>;
}): Promise<BundleConnections> {
  const { bundle, topology, orchestrator, logger } = options;
  const prepared = connectionsOf(bundle, topology).map((connection) => {
    const ref = parseObjectRef(connection.spec.connectorRef);
    const connector = ref
      ? (bundle.resources.get(`Connector/${ref.name}`) as ConnectorResource | undefined)
      : undefined;
    if (!connector) {
      throw new GoondanError(
        'E_REF_UNRESOLVED',
        `Connection ${connection.metadata.name}: its Connector is not in the bundle.`,
      );
    }
    return {
      connection,
      connector,
      secrets: resolveMap(connection.spec.secrets, options.env),
      config: resolveMap(connection.spec.config, options.env),
    };
  });
  const running: RunningConnection[] = prepared.map(({ connection, connector, secrets, config }) => {
    const name = connection.metadata.name;
    const events = connector.spec.events ?? null;
    const rules = connection.spec.ingress?.rules ?? [{}];
    const label = `[connection ${name}]`;
    const route = (id: string, raw: ConnectorEvent) => {
      let event: ConnectorEvent;
      try {
        event = checkConnectorEvent(raw, events);
      } catch (thrown) {
        return logger.warn(`${label} E_CONNECTOR_EVENT_INVALID ${(thrown as Error).message}; dropped`);
      }
      const target = matchIngressRule({
        rules,
        event,
        entryAgent: topology.entryAgent,
        defaultInstanceKey: options.defaultInstanceKey,
      });
      if (!target)
        return logger.warn(`${label} E_CONNECTION_NO_ROUTE event ${event.name} matched no ingress rule; dropped`);
      orchestrator
        .request({
          input: event.message?.text ?? '',
          target: target.agent,
          instanceKey: target.instanceKey,
          source: { kind: 'user', name },
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
          supervised.reply(id, {
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
        });
    };
    const supervised = superviseConnector({
      start: {
        type: 'start',
        connection: name,
        connector: connector.metadata.name,
        entry: resolve(connector.location.baseDir, connector.spec.entry),
        events,
        secrets,
        config,
      },
      cwd: bundle.rootDir,
      onEvent: route,
      log: (line) => logger.error(line),
    });
    return { name, connector: connector.metadata.name, process: supervised };
  });
  return {
    connections: running,
    stop: async () => {
      await Promise.all(running.map((connection) => connection.process.stop()));
    },
  };
}
