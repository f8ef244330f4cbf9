// The orchestrator tests run against each agent transport (docs/transport.md): Bun IPC, and NATS JetStream with
// a real nats-server and a gdn worker in this process hosting the agent processes.
import { afterAll, beforeAll } from 'bun:test';
import { createNatsSwarmTransport, type OrchestratorOptions, startNatsWorker } from '@goondan/core';
import { type NatsServer, startNatsServer } from './nats-server.ts';
import { baseDir, setSwarmTransport } from './swarm-fixture.ts';

export interface TransportCase {
  name: 'ipc' | 'nats';
  /** Orchestrator options for one swarm, and what closes them once its orchestrator has shut down. */
  open(): Promise<{ options: Partial<OrchestratorOptions>; close(): Promise<void> }>;
}

let server: NatsServer | undefined;
let namespaces = 0;

const ipc: TransportCase = {
  name: 'ipc',
  open: async () => ({ options: {}, close: async () => {} }),
};

/** NATS: one server per test file, a namespace, a worker and an orchestrator-side transport per swarm. */
const nats: TransportCase = {
  name: 'nats',
  async open() {
    if (!server) throw new Error('the NATS test server is not running (useTransport was not called in a describe)');
    namespaces += 1;
    const config = {
      servers: server.url,
      namespace: `t${process.pid}x${namespaces}`,
      // The default: a loaded machine can hold this process (orchestrator and worker both) for seconds, and a host
      // key that lapses makes the worker kill the agents as orphans (a 3 s lease did, mid-turn, under load).
      leaseTtlMs: 10_000,
      sharedState: true,
    };
    const worker = await startNatsWorker({ nats: config, libraries: [baseDir] });
    const transport = await createNatsSwarmTransport(config);
    return {
      options: { transport },
      async close() {
        await transport.close();
        await worker.close();
      },
    };
  },
};

export const transportCases: TransportCase[] = [ipc, nats];

/** Call at the top of a describe: its tests run on `kase` (a nats-server is started for the file once). */
export function useTransport(kase: TransportCase): void {
  beforeAll(async () => {
    setSwarmTransport(kase.open);
    if (kase.name === 'nats') server ??= await startNatsServer();
  });
  afterAll(async () => {
    setSwarmTransport(ipc.open);
  });
}

/** Stops the file's nats-server (call in a top-level afterAll). */
export async function stopNatsServer(): Promise<void> {
  await server?.close();
  server = undefined;
}
