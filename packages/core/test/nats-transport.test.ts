// What only the NATS transport has (docs/transport.md): workers in processes of their own — one dying moves its
// instances to another, leases keep an instance on one worker, workers on other "machines" (network namespaces),
// no lost sends across a broker restart, no orphans on a worker whose orchestrator is gone. The orchestrator's
// own guarantees run on NATS in orchestrator-*.test.ts.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import {
  ConversationStore,
  createNatsSwarmTransport,
  instancePaths,
  type NatsSwarmTransport,
  natsNames,
  openInstanceDatabase,
  startNatsWorker,
} from '@goondan/core';
import { type NatsServer, startNatsServer } from './nats-server.ts';
import { startWorkerProcess, type WorkerProcess } from './nats-worker-process.ts';
import { createHosts } from './network-namespaces.ts';
import { baseDir, isAlive, removeTempDirs, type StartedSwarm, startSwarm, waitFor } from './swarm-fixture.ts';

const LEASE_TTL_MS = 1_500;
let server: NatsServer;
let namespaceCount = 0;
const cleanups: (() => Promise<unknown>)[] = [];
let swarm: StartedSwarm | undefined;

beforeAll(async () => {
  server = await startNatsServer();
});
afterEach(async () => {
  await swarm?.orchestrator.shutdown({ gracePeriodMs: 1000 });
  swarm = undefined;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});
afterAll(async () => {
  await server.close();
  await removeTempDirs();
});

function nextNamespace(): string {
  namespaceCount += 1;
  return `n${process.pid}x${namespaceCount}`;
}

async function transportFor(url: string, namespace: string): Promise<NatsSwarmTransport> {
  const transport = await createNatsSwarmTransport({
    servers: url,
    namespace,
    leaseTtlMs: LEASE_TTL_MS,
    sharedState: true,
  });
  cleanups.push(() => transport.close());
  return transport;
}

async function workerProcess(options: Parameters<typeof startWorkerProcess>[0]): Promise<WorkerProcess> {
  const worker = await startWorkerProcess(options);
  cleanups.push(async () => {
    worker.kill('SIGKILL');
    await worker.exited;
  });
  return worker;
}

function userInputs(dir: string, agent: string): string[] {
  const { databaseFile } = instancePaths({ rootDir: dir, agentName: agent, instanceKey: 'default' });
  const db = openInstanceDatabase(databaseFile);
  try {
    return new ConversationStore(db)
      .load()
      .filter((message) => message.data.role === 'user')
      .map((message) => String(message.data.content));
  } finally {
    db.close();
  }
}

const sleep = (ms: number) => ({ toolCalls: [{ name: 'probe__sleep', args: { ms } }] });

/**
 * An in-process worker and a swarm whose agent `worker` it runs, on a namespace of their own with `leaseTtlMs`;
 * `key` is that instance's lease in the bucket.
 */
async function leasedSwarm(leaseTtlMs: number, script: object[]) {
  const namespace = nextNamespace();
  const worker = await startNatsWorker({ nats: { servers: server.url, namespace, leaseTtlMs }, libraries: [baseDir] });
  cleanups.push(() => worker.close());
  const transport = await createNatsSwarmTransport({ servers: server.url, namespace, leaseTtlMs });
  cleanups.push(() => transport.close());
  const started = await startSwarm(
    { scripts: { worker: script } },
    { transport, restart: { initialMs: 50, maxMs: 200 } },
  );
  swarm = started;
  return { worker, transport, started, key: `instance.${Buffer.from('worker/default').toString('base64url')}` };
}

describe('workers', () => {
  test('a worker that dies fails requests on its instance with E_AGENT_CRASHED; the instance restarts on another', async () => {
    const namespace = nextNamespace();
    const first = await workerProcess({ url: server.url, namespace, leaseTtlMs: LEASE_TTL_MS });
    const transport = await transportFor(server.url, namespace);
    swarm = await startSwarm(
      // A process plays its script from the start: the restarted one sleeps briefly, then answers.
      { scripts: { worker: [sleep(2_000), { text: 'served elsewhere' }] } },
      { transport, restart: { initialMs: 50, maxMs: 500 } },
    );
    // Only the first worker runs yet, so it takes the instance; the second starts once it does.
    const pending = swarm.orchestrator.request({ input: 'work', target: 'worker' }).catch((error) => error);
    await waitFor(() => first.took.has('worker/default'), 30_000, 'the first worker to take worker/default');
    await workerProcess({ url: server.url, namespace, leaseTtlMs: LEASE_TTL_MS });
    await waitFor(
      () => swarm!.notifications.some((n) => n.event.type === 'runtime.tool.start'),
      30_000,
      "the worker's sleep",
    );
    const agentPid = first.took.get('worker/default')!;
    first.kill('SIGKILL');
    const failed = await pending;
    expect(failed).toMatchObject({ code: 'E_AGENT_CRASHED' });
    expect(failed.message).toContain('WORKER_LOST');
    // Its agent process went with it (it watches its parent), and the instance serves again elsewhere.
    await waitFor(() => !isAlive(agentPid), 10_000, 'the dead worker’s agent process to exit');
    await waitFor(() => swarm!.orchestrator.list()[0]?.state === 'ready', 30_000, 'the restart on the other worker');
    const reply = await swarm.orchestrator.request({ input: 'again', target: 'worker' });
    expect(reply.text).toBe('served elsewhere');
    const [info] = swarm.orchestrator.list();
    expect(info).toMatchObject({ state: 'ready', restarts: 1, lastExit: { signal: 'WORKER_LOST' } });
    expect(info!.pid).not.toBe(agentPid);
  });

  test('one owner per instance: a held lease refuses the start with E_INSTANCE_LEASED until it lapses', async () => {
    // Long enough for the request below to meet the lease on a busy machine.
    const { worker, transport, started, key } = await leasedSwarm(5_000, [{ text: 'mine now' }]);
    // Another worker (gone without a trace) holds the instance: its lease has not lapsed yet.
    await transport.session.leases.create(
      key,
      JSON.stringify({ workerId: 'wOther', connectionId: 'cOld', hostId: 'h' }),
    );
    await expect(started.orchestrator.request({ input: 'hi', target: 'worker' })).rejects.toMatchObject({
      code: 'E_INSTANCE_LEASED',
      message: expect.stringContaining('worker wOther'),
    });
    expect(worker.running().size).toBe(0);
    // The lease lapses (nobody renews it); a restart then takes it.
    await waitFor(() => started.orchestrator.list()[0]?.state === 'ready', 30_000, 'the start once the lease lapsed');
    expect((await started.orchestrator.request({ input: 'hi', target: 'worker' })).text).toBe('mine now');
    const holder = await transport.session.leases.get(key);
    expect(holder?.json()).toMatchObject({ workerId: worker.workerId });
  });

  test('a lease whose renewal was in flight when its process died is still given up at the exit: the restart is not refused', async () => {
    // Far longer than the test: the restart below can only succeed if the worker gives the lease up itself.
    const { worker, transport, started, key } = await leasedSwarm(60_000, [
      { text: 'first' },
      { text: 'after the restart' },
    ]);
    const { pid } = await started.orchestrator.spawn('worker');
    // A renewal answered by the broker but not yet by the worker: the lease's revision moved under it.
    const lease = (await transport.session.leases.get(key))!;
    await transport.session.leases.update(key, lease.string(), lease.revision);
    process.kill(pid!, 'SIGKILL');
    await waitFor(
      () => started.orchestrator.list()[0]?.state === 'ready' && started.orchestrator.list()[0]?.pid !== pid,
      30_000,
      'the restart of worker/default',
    );
    expect(started.orchestrator.list()[0]).toMatchObject({ restarts: 1, lastExit: { signal: 'SIGKILL' } });
    expect((await started.orchestrator.request({ input: 'hi', target: 'worker' })).text).toBe('first');
    const holder = await transport.session.leases.get(key);
    expect(holder?.json()).toMatchObject({ workerId: worker.workerId });
    expect(holder!.revision).not.toBe(lease.revision);
  });

  test('no orphans: a worker kills the processes of an orchestrator whose host key is gone', async () => {
    const namespace = nextNamespace();
    const worker = await startNatsWorker({
      nats: { servers: server.url, namespace, leaseTtlMs: LEASE_TTL_MS },
      libraries: [baseDir],
    });
    cleanups.push(() => worker.close());
    const transport = await transportFor(server.url, namespace);
    swarm = await startSwarm({ scripts: { worker: [] } }, { transport });
    const { pid } = await swarm.orchestrator.spawn('worker');
    // The orchestrator vanishes without stopping its agents: its host key is gone, nothing renews it.
    await transport.close();
    await waitFor(() => !isAlive(pid!), 30_000, 'the worker to kill the orphaned agent process');
    await waitFor(() => worker.running().size === 0, 30_000, 'the worker to forget it');
  });
});

describe('broker restart', () => {
  test('sends published before, during and after a restart of nats-server are each handled once', async () => {
    const namespace = nextNamespace();
    const worker = await startNatsWorker({
      nats: { servers: server.url, namespace, leaseTtlMs: 5_000 },
      libraries: [baseDir],
    });
    cleanups.push(() => worker.close());
    const transport = await createNatsSwarmTransport({ servers: server.url, namespace, leaseTtlMs: 5_000 });
    cleanups.push(() => transport.close());
    const notes = Array.from({ length: 30 }, (_, index) => `note ${index + 1}`);
    swarm = await startSwarm({ scripts: { worker: notes.map(() => ({ text: 'noted' })) } }, { transport });
    await swarm.orchestrator.spawn('worker');
    const send = (input: string) => swarm!.orchestrator.send({ input, target: 'worker' });
    for (const note of notes.slice(0, 10)) send(note);
    await server.stop();
    for (const note of notes.slice(10, 20)) send(note);
    await server.start();
    for (const note of notes.slice(20)) send(note);
    const report = await swarm.orchestrator.shutdown({ drain: true, drainTimeoutMs: 60_000 });
    expect(report.pendingSends ?? 0).toBe(0);
    const inputs = userInputs(swarm.dir, 'worker');
    expect([...inputs].sort()).toEqual([...notes].sort());
    // FIFO per instance survived the restart too.
    expect(inputs).toEqual(notes);
    // The stream keeps nothing once everything is handled and each connection's leftovers are purged (a work queue).
    const stored = async () => (await transport.session.jsm.streams.info(natsNames(namespace).stream)).state.messages;
    for (let tries = 0; (await stored()) > 0 && tries < 200; tries += 1) await Bun.sleep(25);
    expect(await stored()).toBe(0);
  });
});

describe('several machines', () => {
  test('workers in two network namespaces run the agents; requests cross them through the broker', async () => {
    const hosts = await createHosts(2);
    cleanups.push(() => hosts.remove());
    const broker = await startNatsServer({ host: hosts.hostAddress });
    cleanups.push(() => broker.close());
    const namespace = nextNamespace();
    const workers = await Promise.all(
      hosts.namespaces.map((netns) => workerProcess({ url: broker.url, namespace, leaseTtlMs: LEASE_TTL_MS, netns })),
    );
    const transport = await transportFor(broker.url, namespace);
    swarm = await startSwarm(
      {
        scripts: {
          coordinator: [
            { toolCalls: [{ name: 'agents__request', args: { target: 'worker', input: 'What is 6 x 7?' } }] },
            { text: 'The worker said 42.' },
          ],
          worker: [{ text: '42' }],
        },
      },
      { transport },
    );
    const result = await swarm.orchestrator.request({ input: 'Ask the worker.' });
    expect(result.text).toBe('The worker said 42.');
    expect(swarm.toolResults('coordinator', 'agents__request')[0]).toMatchObject({
      status: 'ok',
      output: { text: '42' },
    });
    // Each agent process runs inside one of the namespaces, none in ours.
    const inNamespaces = new Set((await Promise.all(hosts.namespaces.map(hosts.pids))).flat());
    const pids = swarm.orchestrator.list().map((info) => info.pid!);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(inNamespaces.has(pid)).toBe(true);
    const took = workers.flatMap((worker) => [...worker.took.keys()]).sort();
    expect(took).toEqual(['coordinator/default', 'worker/default']);
  });
});
