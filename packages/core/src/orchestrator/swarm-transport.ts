import { type SpawnAgentProcess, spawnAgentProcess } from './spawn-agent-process.ts';

/**
 * Where the Orchestrator's agent processes run and how their messages travel (docs/transport.md). The
 * Orchestrator routes, times out, detects cycles and restarts the same way whichever transport carries the
 * messages; a transport only starts processes and hands back an AgentProcessConnection (an ordered message pipe,
 * an exit, a kill).
 *
 * - `ipc` (default): a Bun child process on this machine, Bun's IPC channel.
 * - `nats`: a process on whichever `gdn worker` takes it, messages through NATS JetStream
 *   (`nats/nats-swarm-transport.ts`).
 */
export interface SwarmTransport {
  readonly name: string;
  spawn: SpawnAgentProcess;
  /**
   * Whether agent processes see this machine's state directory (`.goondan/`): the durable send inbox lives in
   * each instance's database there. False: sends are durable only while this orchestrator runs (docs/transport.md).
   */
  readonly sharedState: boolean;
  /** Releases what the transport holds (a broker connection). The Orchestrator does not call it: its owner does. */
  close(): Promise<void>;
}

/** The default: one Bun child process per agent instance on this machine, over Bun's IPC channel. */
export const ipcSwarmTransport: SwarmTransport = {
  name: 'ipc',
  sharedState: true,
  spawn: (options) => spawnAgentProcess(options),
  close: async () => {},
};
