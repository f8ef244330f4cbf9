/**
 * The agent transports side by side (docs/transport.md): request round trip and sends per second between two
 * agent processes through the Orchestrator, over Bun IPC and over NATS JetStream (a real nats-server started
 * here), with both agents on one `gdn worker` and with each on a worker of its own (`--max-agents 1`). The three
 * swarms run at once and take turns round by round (interleaved; the first round of each is warm-up). The NATS
 * workers are `gdn worker` processes on this machine, so the broker hop is loopback TCP, not a network.
 * Usage: bun bench/transport.ts [--json]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  createNatsSwarmTransport,
  loadBundle,
  type NatsSwarmTransport,
  Orchestrator,
  resolveSwarm,
  type SwarmTransport,
} from '@goondan/core';
import { startNatsServer } from '../packages/core/test/nats-server.ts';
import { type BenchRow, median, percentile, report } from './harness.ts';
import { benchFile, benchTurn, type RelayCounts, writeRelayBundle } from './relay/relay-bundle.ts';

const baseDir = resolve(import.meta.dir, '..', 'packages', 'base');
const cli = resolve(import.meta.dir, '..', 'packages', 'cli', 'src', 'main.ts');
const counts: RelayCounts = { warmup: 50, roundTrips: 500, sends: 2000, concurrent: 0 };
const rounds = 4; // the first is warm-up

interface Setup {
  name: string;
  orchestrator: Orchestrator;
  dir: string;
  transport?: NatsSwarmTransport;
  roundTrips: number[];
  sendsPerSecond: number[];
}

const server = await startNatsServer();
const temp = mkdtempSync(join(tmpdir(), 'gdn-bench-transport-'));
const workers: ReturnType<typeof Bun.spawn>[] = [];

async function startWorker(namespace: string, maxAgents?: number): Promise<void> {
  const args = [
    'worker',
    '--nats',
    server.url,
    '--namespace',
    namespace,
    ...(maxAgents ? ['--max-agents', String(maxAgents)] : []),
  ];
  const child = Bun.spawn([process.execPath, cli, ...args], { stdout: 'ignore', stderr: 'pipe' });
  workers.push(child);
  const reader = child.stderr.getReader();
  let seen = '';
  while (!seen.includes('serving namespace')) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`gdn worker exited: ${seen}`);
    seen += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  void child.stderr.pipeTo(new WritableStream()).catch(() => {});
}

async function setup(name: string, transport?: SwarmTransport): Promise<Setup> {
  const dir = join(temp, name);
  await Bun.write(join(dir, '.keep'), '');
  writeRelayBundle(dir, Array.from({ length: rounds }, () => benchTurn('responder', counts)).flat());
  const { bundle, problems } = await loadBundle({ dir, libraries: [baseDir] });
  if (!bundle) throw new Error(`bench bundle invalid: ${JSON.stringify(problems)}`);
  const orchestrator = new Orchestrator({
    bundle,
    topology: resolveSwarm(bundle)!,
    instanceKey: 'bench',
    libraries: [baseDir],
    stateFile: null,
    onOutput: (line) => console.error(`[${name}] ${line}`),
    ...(transport ? { transport } : {}),
  });
  return { name, orchestrator, dir, roundTrips: [], sendsPerSecond: [], transport: transport as NatsSwarmTransport };
}

const setups: Setup[] = [];
try {
  setups.push(await setup('ipc'));
  await startWorker('one');
  setups.push(
    await setup(
      'nats-1-worker',
      await createNatsSwarmTransport({ servers: server.url, namespace: 'one', sharedState: true }),
    ),
  );
  await startWorker('two', 1);
  await startWorker('two', 1);
  setups.push(
    await setup(
      'nats-2-workers',
      await createNatsSwarmTransport({ servers: server.url, namespace: 'two', sharedState: true }),
    ),
  );
  for (let round = 0; round < rounds; round += 1) {
    for (const one of round % 2 === 0 ? setups : [...setups].reverse()) {
      await one.orchestrator.request({ input: `round ${round}` });
      const result = JSON.parse(readFileSync(benchFile(one.dir, 'bench'), 'utf8')) as {
        samples: number[];
        throughput: number;
      };
      if (round === 0) continue;
      one.roundTrips.push(...result.samples);
      one.sendsPerSecond.push(result.throughput);
    }
  }
} finally {
  for (const one of setups) {
    await one.orchestrator.shutdown({ gracePeriodMs: 2000 });
    await one.transport?.close();
  }
  for (const child of workers) child.kill('SIGTERM');
  await Promise.all(workers.map((child) => child.exited));
  await server.close();
  rmSync(temp, { recursive: true, force: true });
}

const [ipc, ...nats] = setups as [Setup, ...Setup[]];
const rows: BenchRow[] = [];
const ipcRoundTrip = median(ipc.roundTrips);
rows.push({
  figure: 'agent→agent request round trip, IPC',
  unit: 'ms',
  ours: ipcRoundTrip,
  oursP99: percentile(ipc.roundTrips, 0.99),
});
rows.push({ figure: 'agent sends, IPC', unit: 'ops/s', ours: median(ipc.sendsPerSecond) });
for (const one of nats) {
  rows.push({
    figure: `agent→agent request round trip, ${one.name}`,
    unit: 'ms',
    ours: median(one.roundTrips),
    oursP99: percentile(one.roundTrips, 0.99),
    peer: ipcRoundTrip,
    peerP99: percentile(ipc.roundTrips, 0.99),
    peerName: 'IPC transport',
    note: 'JetStream: each hop is a stored, acknowledged message (4 hops per request)',
  });
  rows.push({
    figure: `agent sends, ${one.name}`,
    unit: 'ops/s',
    ours: median(one.sendsPerSecond),
    peer: median(ipc.sendsPerSecond),
    peerName: 'IPC transport',
  });
}

report(rows, () => {
  console.log(`agent transports (two agent processes, trivial responder; ${rounds - 1} interleaved rounds)`);
  for (const row of rows) {
    const p99 = row.oursP99 === undefined ? '' : `   p99 ${row.oursP99.toFixed(3)}`;
    const vs = row.peer === undefined ? '' : `   ${(row.ours / row.peer).toFixed(1)}× IPC`;
    console.log(`  ${row.figure.padEnd(50)} ${row.ours.toFixed(row.unit === 'ms' ? 3 : 0)} ${row.unit}${p99}${vs}`);
  }
});
