import type { Msg, Subscription } from '@nats-io/transport-node';
import { eventTypes, type IpcMessage } from '../ipc-message.ts';
import {
  type AgentProcessConfig,
  type AgentProcessConnection,
  retainSpareAgentProcess,
  type SpawnAgentProcess,
  spawnAgentProcess,
} from '../spawn-agent-process.ts';
import type { NatsConfig } from './nats-config.ts';
import {
  hostLeaseKey,
  type InstanceLease,
  instanceLeaseKey,
  messageIds,
  natsId,
  type SpawnAnswer,
  type SpawnRequest,
  spawnRequestProblem,
} from './nats-ids.ts';
import { createNatsLink, type NatsLink } from './nats-link.ts';
import { type NatsSession, openNatsSession } from './nats-session.ts';

export interface NatsWorkerOptions {
  nats: NatsConfig & { namespace: string };
  /** This machine's copy of the bundle (default: the orchestrator's path, for a shared file system). */
  bundleDir?: string;
  /** This machine's library bundles (e.g. @goondan/base), in the orchestrator's order (default: its paths). */
  libraries?: string[];
  /** The environment of the agent processes (default this process's: model keys stay on the worker's machine). */
  env?: Record<string, string | undefined>;
  spawnProcess?: SpawnAgentProcess;
  /** Lines about what the worker does (taken, ended, refused). */
  log?: (line: string) => void;
  /** Stable id (default a random one). */
  workerId?: string;
  /** At most this many agent processes here; a full worker leaves the queue group until one ends. */
  maxAgents?: number;
}

export interface NatsWorker {
  readonly workerId: string;
  readonly session: NatsSession;
  /** Instances running here (`agent/instanceKey` → pid). */
  running(): Map<string, number>;
  /** Kills every process here (SIGKILL to its group), waits for their exits to be published, disconnects. */
  close(): Promise<void>;
}

interface Hosted {
  address: string;
  connectionId: string;
  hostId: string;
  leaseKey: string;
  revision: number;
  connection: AgentProcessConnection;
  link: NatsLink;
  hostMisses: number;
}

/**
 * `gdn worker` (docs/transport.md): takes agent instances from the swarm's queue group on NATS and runs each in
 * a local agent process (the same process as the IPC transport runs), bridging its IPC channel to the
 * connection's subjects. Before it runs an instance it takes the instance's lease in the swarm's KV bucket (a
 * create: it fails while another worker holds it) and renews it while the process runs, so two workers never run
 * the same instance; a lease it can no longer renew (it was cut off long enough for the lease to lapse) kills the
 * process. Processes of an orchestrator whose host key lapsed are killed (no orphans).
 */
export async function startNatsWorker(options: NatsWorkerOptions): Promise<NatsWorker> {
  const workerId = options.workerId ?? natsId('w');
  const session = await openNatsSession({ ...options.nats, name: `gdn worker ${workerId}` });
  const { nc, leases, names, leaseTtlMs } = session;
  const log = options.log ?? (() => {});
  const spawnProcess = options.spawnProcess ?? spawnAgentProcess;
  // A spare agent process started ahead makes the next start warm (modules loaded).
  const releaseSpare = options.spawnProcess ? () => {} : retainSpareAgentProcess();
  const hosted = new Map<string, Hosted>();
  let closing = false;
  const maxAgents = options.maxAgents ?? Number.POSITIVE_INFINITY;
  /** Takes in progress (lease and spawn), counted against maxAgents with the hosted ones. */
  let starting = 0;
  let spawnSubscription: Subscription | null = null;
  const listen = () => {
    if (closing || spawnSubscription || hosted.size + starting >= maxAgents) return;
    spawnSubscription = nc.subscribe(names.spawnSubject, {
      queue: names.workerQueue,
      callback: (_error, msg) => {
        starting += 1;
        if (hosted.size + starting >= maxAgents) {
          spawnSubscription?.unsubscribe();
          spawnSubscription = null;
        }
        void take(msg)
          .catch((thrown) => log(`could not take a spawn request: ${(thrown as Error)?.message ?? String(thrown)}`))
          .finally(() => {
            starting -= 1;
            listen();
          });
      },
    });
  };

  const take = async (msg: Msg): Promise<void> => {
    const answer = (value: SpawnAnswer) => msg.respond(JSON.stringify(value));
    let request: SpawnRequest;
    try {
      request = msg.json<SpawnRequest>();
    } catch {
      request = undefined as unknown as SpawnRequest;
    }
    const problem = spawnRequestProblem(request);
    if (problem) {
      // Anyone allowed on the swarm's subjects can publish here: refused with a reason, never thrown.
      log(`refused a malformed spawn request on ${msg.subject}: ${problem}`);
      return void answer(refusal('E_NATS_MESSAGE_INVALID', `Worker ${workerId} refused a spawn request: ${problem}.`));
    }
    const { agent, instanceKey } = request.config;
    const address = `${agent}/${instanceKey}`;
    if (closing) return void answer(refusal('E_NATS_NO_WORKER', `Worker ${workerId} is stopping.`));
    if (hosted.size + starting > maxAgents) {
      return void answer(refusal('E_NATS_NO_WORKER', `Worker ${workerId} runs its most agents (${maxAgents}).`));
    }
    const leaseKey = instanceLeaseKey(agent, instanceKey);
    const lease: InstanceLease = { workerId, connectionId: request.connectionId, hostId: request.hostId };
    let revision: number;
    try {
      revision = await leases.create(leaseKey, JSON.stringify(lease));
    } catch {
      const holder = await leases.get(leaseKey).catch(() => null);
      const by = holder?.operation === 'PUT' ? ` by worker ${(holder.json() as InstanceLease).workerId}` : '';
      return void answer(
        refusal('E_INSTANCE_LEASED', `Agent ${address} is already running${by}; its lease has not lapsed.`),
      );
    }
    const link = createNatsLink(session, {
      publishSubject: names.fromSubject(request.connectionId),
      consumeSubject: names.toSubject(request.connectionId),
      durable: `to-${request.connectionId}`,
    });
    let connection: AgentProcessConnection;
    try {
      await link.ready;
      const host = { bundleDir: request.config.bundleDir, libraries: request.config.libraries };
      connection = spawnProcess({
        config: localConfig(request.config, options),
        env: options.env ?? process.env,
        onOutput: (line, stream) => link.send({ out: line, stream }, natsId('o')),
      });
      const process_ = connection;
      link.onEnvelope((envelope) => {
        if ('m' in envelope) process_.transport.send(localMessage(envelope.m, host, options));
      });
    } catch (thrown) {
      await link.close({ remove: true });
      await leases.delete(leaseKey).catch(() => {});
      const reason = thrown instanceof Error ? thrown.message : String(thrown);
      return void answer(refusal('E_AGENT_CRASHED', `Worker ${workerId} could not start ${address}: ${reason}`));
    }
    const entry: Hosted = {
      address,
      connectionId: request.connectionId,
      hostId: request.hostId,
      leaseKey,
      revision,
      connection,
      link,
      hostMisses: 0,
    };
    hosted.set(request.connectionId, entry);
    const idOf = messageIds(request.connectionId);
    connection.transport.onMessage((message) => link.send({ m: message }, idOf(message)));
    void connection.exited.then(async (exit) => {
      hosted.delete(request.connectionId);
      // The lease goes before the exit is told: the host restarts the instance as soon as it hears the exit (50 ms
      // later at the least), maybe on this worker, and a start that still found this dead process's lease was
      // refused E_INSTANCE_LEASED and counted as a crash, three of which make a crash loop. Only if it is still this
      // process's (compare-and-delete by revision).
      await releaseLease(entry);
      link.send({ exit }, `${request.connectionId}:exit`);
      await link.flushed();
      listen();
      await link.close({ remove: true });
      log(`ended ${address} (pid ${connection.pid}, ${exit.signalCode ?? `code ${exit.exitCode}`})`);
    });
    log(`took ${address} (pid ${connection.pid})`);
    answer({ workerId, pid: connection.pid });
  };

  listen();
  const subscriptions: Subscription[] = [
    nc.subscribe(`${names.workerSubject(workerId)}.kill`, {
      callback: (_error, msg) => {
        try {
          const { connectionId, signal } = msg.json<{ connectionId: string; signal: NodeJS.Signals }>();
          hosted.get(connectionId)?.connection.kill(signal);
        } catch {
          // Not ours to read.
        }
      },
    }),
  ];

  /**
   * Deletes the lease of a hosted instance whose process ended, if it is still that process's. A renewal in flight
   * when the process ended may have moved the lease's revision (the entry learns the new one only when the renewal
   * answers): then the lease is read again and deleted at its current revision, as long as it still names this
   * worker and connection. Left behind, it would refuse the restart until it lapsed.
   */
  const releaseLease = async (entry: Hosted) => {
    try {
      await leases.delete(entry.leaseKey, { previousSeq: entry.revision });
      return;
    } catch {
      // Moved by a renewal, taken by someone else, or the broker is away.
    }
    const current = await leases.get(entry.leaseKey).catch(() => null);
    if (current?.operation !== 'PUT') return;
    const holder = current.json() as InstanceLease;
    if (holder.workerId !== workerId || holder.connectionId !== entry.connectionId) return;
    await leases.delete(entry.leaseKey, { previousSeq: current.revision }).catch(() => {});
  };

  /** Renews every lease this worker holds; a lease someone else took meanwhile means this copy must stop. */
  const renew = async () => {
    for (const entry of hosted.values()) {
      const lease: InstanceLease = { workerId, connectionId: entry.connectionId, hostId: entry.hostId };
      try {
        entry.revision = await leases.update(entry.leaseKey, JSON.stringify(lease), entry.revision);
      } catch (thrown) {
        if (!isWrongSequence(thrown)) continue; // the broker is away: try again next time
        log(`lost the lease of ${entry.address}: killing it`);
        entry.connection.kill('SIGKILL');
      }
    }
  };
  /** Processes of an orchestrator that is gone (its host key lapsed) are killed: no orphans on workers. */
  const checkHosts = async () => {
    const hosts = new Set([...hosted.values()].map((entry) => entry.hostId));
    for (const hostId of hosts) {
      const entry = await leases.get(hostLeaseKey(hostId)).catch(() => undefined);
      if (entry === undefined) continue;
      const present = entry !== null && entry.operation === 'PUT';
      for (const one of hosted.values()) {
        if (one.hostId !== hostId) continue;
        one.hostMisses = present ? 0 : one.hostMisses + 1;
        if (one.hostMisses >= 2) {
          log(`the orchestrator of ${one.address} is gone: killing it`);
          one.connection.kill('SIGKILL');
        }
      }
    }
  };
  const renewTimer = setInterval(() => void renew(), Math.max(100, Math.floor(leaseTtlMs / 3)));
  const hostTimer = setInterval(() => void checkHosts(), Math.max(100, Math.floor(leaseTtlMs / 2)));
  await nc.flush();

  return {
    workerId,
    session,
    running: () => new Map([...hosted.values()].map((entry) => [entry.address, entry.connection.pid])),
    async close() {
      if (closing) return;
      closing = true;
      clearInterval(renewTimer);
      clearInterval(hostTimer);
      for (const subscription of subscriptions) subscription.unsubscribe();
      spawnSubscription?.unsubscribe();
      const entries = [...hosted.values()];
      for (const entry of entries) entry.connection.kill('SIGKILL');
      await Promise.all(entries.map((entry) => entry.connection.exited));
      await Promise.all(entries.map((entry) => entry.link.flushed()));
      releaseSpare();
      await session.close();
    },
  };
}

function refusal(code: string, message: string): SpawnAnswer {
  return { error: { code, message } };
}

function isWrongSequence(thrown: unknown): boolean {
  return /wrong last sequence/i.test(thrown instanceof Error ? thrown.message : String(thrown));
}

/** The orchestrator's paths, as they are on this machine. */
function pathMap(host: { bundleDir: string; libraries: string[] }, options: NatsWorkerOptions): [string, string][] {
  const pairs: [string, string][] = [];
  if (options.bundleDir && options.bundleDir !== host.bundleDir) pairs.push([host.bundleDir, options.bundleDir]);
  const libraries = options.libraries ?? [];
  host.libraries.forEach((dir, index) => {
    const local = libraries[index];
    if (local && local !== dir) pairs.push([dir, local]);
  });
  return pairs;
}

function mapPaths<T>(value: T, pairs: [string, string][]): T {
  if (pairs.length === 0) return value;
  let text = JSON.stringify(value);
  for (const [from, to] of pairs)
    text = text.split(JSON.stringify(from).slice(1, -1)).join(JSON.stringify(to).slice(1, -1));
  return JSON.parse(text) as T;
}

function localConfig(config: AgentProcessConfig, options: NatsWorkerOptions): AgentProcessConfig {
  const mapped = mapPaths(config, pathMap(config, options));
  return { ...mapped, parentPid: process.pid };
}

/** The bundle the orchestrator sends names its own paths: they become this machine's. */
function localMessage(
  message: IpcMessage,
  host: { bundleDir: string; libraries: string[] },
  options: NatsWorkerOptions,
): IpcMessage {
  if (message.type !== 'event' || message.payload.type !== eventTypes.bundle) return message;
  return mapPaths(message, pathMap(host, options));
}
