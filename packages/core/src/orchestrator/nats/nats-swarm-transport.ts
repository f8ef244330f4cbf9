import { controlEvent, eventTypes, ORCHESTRATOR } from '../ipc-message.ts';
import { createFedTransport } from '../process-transport.ts';
import type { AgentProcessConnection, ProcessExit, SpawnAgentProcessOptions } from '../spawn-agent-process.ts';
import type { SwarmTransport } from '../swarm-transport.ts';
import type { NatsConfig } from './nats-config.ts';
import {
  hostLeaseKey,
  type InstanceLease,
  instanceLeaseKey,
  messageIds,
  natsId,
  type SpawnAnswer,
} from './nats-ids.ts';
import { createNatsLink } from './nats-link.ts';
import { type NatsSession, openNatsSession } from './nats-session.ts';

const SPAWN_TIMEOUT_MS = 10_000;
/** A process whose worker's lease is gone for this many checks in a row (and sent no exit) is lost. */
const LOST_AFTER_MISSES = 2;

export interface NatsSwarmTransport extends SwarmTransport {
  readonly session: NatsSession;
  readonly hostId: string;
}

/**
 * The Orchestrator's side of the NATS transport (docs/transport.md): each agent process is asked of the
 * workers' queue group (request/reply); the worker that takes the instance's lease runs it. Messages of one
 * process's life travel on two subjects of the swarm's JetStream stream, in order, deduplicated by id; its exit
 * comes last on the same subject. A process whose worker lost its lease (the worker died) counts as crashed, and
 * the Orchestrator restarts it on whichever worker takes it next.
 */
export async function createNatsSwarmTransport(
  config: NatsConfig & { namespace: string },
): Promise<NatsSwarmTransport> {
  const session = await openNatsSession({ ...config, name: `gdn orchestrator ${process.pid}` });
  const { nc, leases, names, leaseTtlMs } = session;
  const hostId = natsId('h');
  const keepHost = () => leases.put(hostLeaseKey(hostId), String(process.pid)).catch(() => {});
  await keepHost();
  const hostTimer = setInterval(keepHost, Math.max(100, Math.floor(leaseTtlMs / 3)));
  hostTimer.unref?.();
  const open = new Set<() => void>();
  let closed = false;

  const spawn = (options: SpawnAgentProcessOptions): AgentProcessConnection => {
    const connectionId = natsId('c');
    const leaseKey = instanceLeaseKey(options.config.agent, options.config.instanceKey);
    const link = createNatsLink(session, {
      publishSubject: names.toSubject(connectionId),
      consumeSubject: names.fromSubject(connectionId),
      durable: `from-${connectionId}`,
    });
    const idOf = messageIds(connectionId);
    const transport = createFedTransport({
      send: (message) => link.send({ m: message }, idOf(message)),
      close: () => {},
    });
    let resolveExit: (exit: ProcessExit) => void = () => {};
    const exited = new Promise<ProcessExit>((resolve) => {
      resolveExit = resolve;
    });
    let gone = false;
    let workerId: string | undefined;
    let pendingKill: string | undefined;
    let watch: ReturnType<typeof setInterval> | undefined;
    const end = (exit: ProcessExit) => {
      if (gone) return;
      gone = true;
      clearInterval(watch);
      open.delete(forget);
      transport.closed();
      resolveExit(exit);
      // What is left for it on the broker goes; the worker removes its own consumer.
      void link
        .close({ remove: true })
        .then(() => session.jsm.streams.purge(names.stream, { filter: names.toSubject(connectionId) }).catch(() => {}));
    };
    const forget = () => end({ exitCode: null, signalCode: 'SIGKILL' });
    open.add(forget);
    const failed = (error: { code: string; message: string; suggestion?: string }) => {
      // As a process that could not open its instance: the Orchestrator fails waiting requests with this code.
      transport.receive({
        type: 'event',
        from: `${options.config.agent}/${options.config.instanceKey}`,
        to: ORCHESTRATOR,
        payload: controlEvent({ type: eventTypes.failed, source: options.config.agent, data: error }),
      });
      end({ exitCode: 1, signalCode: null });
    };
    const kill = (signal: string) => {
      if (gone) return;
      if (!workerId) {
        pendingKill = signal;
        return;
      }
      nc.publish(`${names.workerSubject(workerId)}.kill`, JSON.stringify({ connectionId, signal }));
    };
    link.onEnvelope((envelope) => {
      if ('m' in envelope) transport.receive(envelope.m);
      else if ('out' in envelope) options.onOutput?.(envelope.out, envelope.stream);
      else if ('exit' in envelope) end(envelope.exit);
    });
    const connection: AgentProcessConnection = {
      pid: 0,
      started: Promise.resolve(),
      transport,
      exited,
      alive: () => !gone,
      kill: (signal = 'SIGTERM') => kill(signal),
    };
    connection.started = (async () => {
      try {
        if (closed) throw new Error('the transport was closed');
        await link.ready;
        const request = { connectionId, hostId, config: options.config };
        const reply = await nc.request(names.spawnSubject, JSON.stringify(request), { timeout: SPAWN_TIMEOUT_MS });
        const answer = reply.json<SpawnAnswer>();
        if ('error' in answer) return failed(answer.error);
        workerId = answer.workerId;
        connection.pid = answer.pid;
        if (pendingKill) kill(pendingKill);
        watch = watchLease(leaseKey, connectionId, () => end({ exitCode: null, signalCode: 'WORKER_LOST' }));
      } catch (thrown) {
        const reason = thrown instanceof Error ? thrown.message : String(thrown);
        failed({
          code: 'E_NATS_NO_WORKER',
          message: `No gdn worker took ${options.config.agent}/${options.config.instanceKey} on NATS (${reason}).`,
          suggestion: `Start one: gdn worker --nats URL --namespace ${config.namespace} (docs/transport.md).`,
        });
      }
    })();
    return connection;
  };

  /** Checks the instance's lease: gone (or taken by another process) with no exit heard means the worker died. */
  const watchLease = (key: string, connectionId: string, lost: () => void) => {
    let misses = 0;
    const timer = setInterval(
      async () => {
        const entry = await leases.get(key).catch(() => undefined);
        if (entry === undefined) return; // the broker is unreachable: no verdict
        let holder: InstanceLease | null = null;
        try {
          holder = entry && entry.operation === 'PUT' ? (entry.json() as InstanceLease) : null;
        } catch {
          holder = null;
        }
        misses = holder?.connectionId === connectionId ? 0 : misses + 1;
        if (misses >= LOST_AFTER_MISSES) lost();
      },
      Math.max(100, Math.floor(leaseTtlMs / 2)),
    );
    timer.unref?.();
    return timer;
  };

  return {
    name: 'nats',
    sharedState: config.sharedState === true,
    session,
    hostId,
    spawn,
    async close() {
      closed = true;
      clearInterval(hostTimer);
      for (const forget of [...open]) forget();
      await leases.delete(hostLeaseKey(hostId)).catch(() => {});
      await session.close();
    },
  };
}
