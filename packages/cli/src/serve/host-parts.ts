import { type BundleChannels, startBundleChannels, startBundleConnections, storedBotForChannels } from '@goondan/base';
import { openScheduleStore, orchestratorDeliver, Scheduler, scheduleStorePath } from '@goondan/core';
import { stderrLogger } from '../stderr-logger.ts';
import { scheduleRoutes } from './schedule-routes.ts';
import type { HostPart, ServeHostOptions } from './serve-host.ts';

/** The bundle's Connections (docs/connectors.md): a supervised process per Connector, events routed by ingress rules. */
async function connectionsPart({
  orchestrator,
  bundle,
  topology,
}: Parameters<NonNullable<ServeHostOptions['parts']>>[0]): Promise<HostPart> {
  const connections = await startBundleConnections({
    bundle,
    topology: topology(),
    orchestrator,
    logger: stderrLogger,
    defaultInstanceKey: topology().instanceKey ?? 'default',
  });
  for (const connection of connections.connections) {
    void connection.process.ready.then(() =>
      console.error(`[serve] connection ${connection.name}: connector ${connection.connector} running`),
    );
  }
  return { stop: () => connections.stop() };
}

/**
 * The parts `gdn serve` runs beside the orchestrator: the bundle's scheduler (`.goondan/schedules.db`, firing into
 * the agent instances that made each schedule) and the channels its agents declare (Telegram) and its Connections' connectors. Each is stopped
 * before the orchestrator drains.
 */
export const hostParts: NonNullable<ServeHostOptions['parts']> = async ({ orchestrator, bundle, topology }) => {
  const store = openScheduleStore({ path: scheduleStorePath({ rootDir: bundle.rootDir }) });
  const scheduler = new Scheduler({
    store,
    deliver: orchestratorDeliver(orchestrator),
    agents: () => topology().agents,
    logger: { warn: (line) => console.error(`[scheduler] ${line}`) },
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
    // What the assistant's telegram__enable / telegram__set_token stored (docs/assistant-pack-2.md#telegram).
    const stored = storedBotForChannels(bundle, { agents: topology().agents });
    if (stored.note) console.error(`[serve] ${stored.note}`);
    const channels: BundleChannels = stored.start
      ? await startBundleChannels({
          bundle,
          orchestrator,
          logger: stderrLogger,
          agents: topology().agents,
          env: stored.env,
        })
      : { channels: [], notify: () => {}, stop: async () => {} };
    for (const channel of channels.channels)
      console.error(`[serve] ${channel.kind} channel answering for ${channel.agent}`);
    const channelsPart: HostPart = {
      notify: (notification) => channels.notify(notification),
      stop: () => channels.stop(),
    };
    try {
      return [schedulerPart, channelsPart, await connectionsPart({ orchestrator, bundle, topology })];
    } catch (thrown) {
      await channelsPart.stop();
      throw thrown;
    }
  } catch (thrown) {
    await schedulerPart.stop();
    throw thrown;
  }
};
