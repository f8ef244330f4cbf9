import {
  type BundleChannels,
  connectionsOf,
  startBundleChannels,
  startBundleConnections,
  storedBotForChannels,
  type TelegramPoller,
} from '@goondan/base';
import {
  type Bundle,
  openScheduleStore,
  orchestratorDeliver,
  Scheduler,
  type SwarmTopology,
  scheduleStorePath,
} from '@goondan/core';
import { stderrLogger } from '../stderr-logger.ts';
import { scheduleRoutes } from './schedule-routes.ts';
import type { HostPart, ServeHostOptions } from './serve-host.ts';

/** What telegram__enable / telegram__set_token stored (docs/assistant-pack-2.md#telegram), for channels and Connections. */
function storedBot(bundle: Bundle, topology: SwarmTopology) {
  return storedBotForChannels(bundle, { agents: topology.agents, connections: connectionsOf(bundle, topology) });
}

/**
 * The bundle's Connections (docs/connectors.md): a supervised process per Connector, events routed by ingress
 * rules. Restarted as their documents change at a reload; stopped after the drain, so running turns get replies.
 */
async function connectionsPart(
  { orchestrator, bundle, topology }: Parameters<NonNullable<ServeHostOptions['parts']>>[0],
  otherPollers: readonly TelegramPoller[],
): Promise<HostPart> {
  const announce = (names: readonly string[]) => {
    for (const connection of connections.running()) {
      if (!names.includes(connection.name)) continue;
      void connection.process.ready.then(() =>
        console.error(`[serve] connection ${connection.name}: connector ${connection.connector} running`),
      );
    }
  };
  const connections = await startBundleConnections({
    bundle,
    topology: topology(),
    orchestrator,
    logger: stderrLogger,
    defaultInstanceKey: topology().instanceKey ?? 'default',
    settings: (next, served) => {
      const stored = storedBot(next, served);
      return { env: stored.env, startTelegram: stored.start };
    },
    otherPollers,
  });
  announce(connections.running().map((connection) => connection.name));
  return {
    notify: (notification) => connections.notify(notification),
    oauthGranted: (requester, event) => connections.granted(requester, event),
    reload: async (next, served) => {
      const { started, restarted, stopped } = await connections.reload(next, served);
      for (const name of restarted) console.error(`[serve] connection ${name}: restarted (its documents changed)`);
      for (const name of stopped) console.error(`[serve] connection ${name}: stopped (removed)`);
      announce([...started, ...restarted]);
    },
    stop: async () => connections.quiesce(),
    afterDrain: () => connections.stop(),
  };
}

/**
 * The parts `gdn serve` runs beside the orchestrator: the bundle's scheduler (`.goondan/schedules.db`, firing into
 * the agent instances that made each schedule), the channels its agents declare (Telegram) and its Connections'
 * connectors. Each is stopped before the orchestrator drains, but connectors only stop taking events then: they stop
 * once it has drained, so the turns they started deliver their replies.
 */
export const hostParts: NonNullable<ServeHostOptions['parts']> = async ({ orchestrator, bundle, topology }) => {
  const store = openScheduleStore({
    path: scheduleStorePath({ rootDir: bundle.rootDir }),
    // Deleted under the server (rm -rf .goondan): opened afresh at its path, so what is added from now on is kept.
    onReopened: (path) =>
      stderrLogger.error(
        `[serve] scheduler: ${path} was deleted or replaced while serving; opened it again at its path (the schedules it held are gone, new ones are stored there)`,
      ),
  });
  const scheduler = new Scheduler({
    store,
    deliver: orchestratorDeliver(orchestrator),
    agents: () => topology().agents,
    // A warning may quote why a firing failed (an agent's error): made printable and redacted as other logs are.
    logger: { warn: (line) => stderrLogger.error(`[scheduler] ${line}`) },
  });
  scheduler.start();
  const schedulerPart: HostPart = {
    scheduler,
    routes: scheduleRoutes(scheduler, () => topology().instanceKey ?? 'default'),
    stop: async () => {
      await scheduler.stop();
      store.close();
    },
  };
  try {
    const stored = storedBot(bundle, topology());
    if (stored.note) console.error(`[serve] ${stored.note}`);
    const channels: BundleChannels = stored.start
      ? await startBundleChannels({
          bundle,
          orchestrator,
          logger: stderrLogger,
          agents: topology().agents,
          env: stored.env,
        })
      : { channels: [], pollers: [], notify: () => {}, stop: async () => {} };
    for (const channel of channels.channels)
      console.error(`[serve] ${channel.kind} channel answering for ${channel.agent}`);
    const channelsPart: HostPart = {
      notify: (notification) => channels.notify(notification),
      stop: () => channels.stop(),
    };
    try {
      return [schedulerPart, channelsPart, await connectionsPart({ orchestrator, bundle, topology }, channels.pollers)];
    } catch (thrown) {
      await channelsPart.stop();
      throw thrown;
    }
  } catch (thrown) {
    await schedulerPart.stop();
    throw thrown;
  }
};
