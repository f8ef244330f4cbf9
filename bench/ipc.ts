/**
 * Inter-agent IPC through the Orchestrator (issue: Orchestrator; DESIGN.md §4 budgets: request round trip ≤ 1 ms
 * median, ≥ 5,000 msgs/s, cold start ≤ 100 ms, idle RSS ≤ 60 MB).
 *
 * Two real agent processes: a driver, whose tool calls ctx.agents.request / send in a loop, and a trivial
 * responder, whose turn middleware answers at once without a model call (the turn still runs through the agent
 * runtime: FIFO, turn span written to SQLite, reply event). Every message goes driver → orchestrator → responder
 * → orchestrator → driver, as in production. The peer is the same topology with nothing but Bun's IPC: two bare
 * child processes relaying plain objects through a parent. Round trips are measured in rounds that alternate
 * between ours and the peer (which goes first alternates too; the first round of each is warm-up), so both see the
 * same load of the shared machine. Also: sends per second, concurrent requests, a responder that runs a real
 * (scripted) model step, cold spawn to ready, and idle RSS per agent process.
 * Usage: bun bench/ipc.ts [--json]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadBundle, Orchestrator, resolveSwarm } from '@goondan/core';
import { type BenchRow, report } from './harness.ts';
import { benchFile, benchTurn, writeRelayBundle } from './relay/relay-bundle.ts';

const json = process.argv.includes('--json');
const baseDir = resolve(import.meta.dir, '..', 'packages', 'base');
const counts = { warmup: 100, roundTrips: 600, rounds: 6, sends: 20000, concurrent: 20000, modelRoundTrips: 300 };

/** The driver's turns: `rounds` of round trips, then sends and concurrent requests, then the modeled responder. */
function driverScript(modelSteps: number): object[] {
  const { warmup, roundTrips, sends, concurrent } = counts;
  const round = benchTurn('responder', { warmup, roundTrips, sends: 0, concurrent: 0 });
  return [
    ...Array.from({ length: counts.rounds }, () => round).flat(),
    ...benchTurn('responder', { warmup: 0, roundTrips: 0, sends, concurrent }),
    ...benchTurn('modeled', { warmup: 20, roundTrips: modelSteps, sends: 0, concurrent: 0 }),
  ];
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

async function ours(dir: string, peerRound: () => Promise<number[]>) {
  writeRelayBundle(dir, driverScript(counts.modelRoundTrips));
  const { bundle, problems } = await loadBundle({ dir, libraries: [baseDir] });
  if (!bundle) throw new Error(`bench bundle invalid: ${JSON.stringify(problems)}`);
  const orchestrator = new Orchestrator({
    bundle,
    topology: resolveSwarm(bundle)!,
    instanceKey: 'bench',
    libraries: [baseDir],
    stateFile: null,
    onOutput: (line) => console.error(`[agent] ${line}`),
  });
  try {
    // Spawn to ready handshake, one fresh process at a time: back to back (the spare started ahead may still be
    // loading), then with a pause before each (the spare is warm: the steady state of spawns a second apart).
    const cold: number[] = [];
    const warm: number[] = [];
    const fresh: number[] = [];
    for (let index = 0; index < 16; index += 1) {
      if (index >= 8) await Bun.sleep(1500);
      const start = performance.now();
      const info = await orchestrator.spawn('responder', `cold-${index}`);
      (index < 8 ? cold : warm).push(performance.now() - start);
      fresh.push(info.pid!);
    }
    await Bun.sleep(1000);
    Bun.gc(true);
    const idleFresh = fresh.map(rssMb);

    const read = () => JSON.parse(readFileSync(benchFile(dir, 'bench'), 'utf8'));
    const samples: number[] = [];
    const peerSamples: number[] = [];
    for (let round = 0; round < counts.rounds; round += 1) {
      const peerFirst = round % 2 === 1;
      const fromPeer = peerFirst ? await peerRound() : [];
      await orchestrator.request({ input: 'round trips' });
      const fromUs = (read() as { samples: number[] }).samples;
      if (!peerFirst) fromPeer.push(...(await peerRound()));
      if (round === 0) continue;
      samples.push(...fromUs);
      peerSamples.push(...fromPeer);
    }
    await orchestrator.request({ input: 'sends' });
    const trivial = { ...(read() as { throughput: number; concurrent: number }), samples };
    await orchestrator.request({ input: 'modeled' });
    const modeled = read() as { samples: number[] };
    // Idle: an agent process collects garbage once after a second without turns.
    await Bun.sleep(2500);
    const processes = orchestrator.list();
    const pidOf = (agent: string) =>
      processes.find((process) => process.agent === agent && process.instanceKey === 'bench')!.pid!;
    return {
      roundTripMs: { median: percentile(trivial.samples, 0.5), p99: percentile(trivial.samples, 0.99) },
      peerRoundTripMs: { median: percentile(peerSamples, 0.5), p99: percentile(peerSamples, 0.99) },
      sendsPerSecond: trivial.throughput,
      concurrentRequestsPerSecond: trivial.concurrent,
      modelTurnRoundTripMs: { median: percentile(modeled.samples, 0.5), p99: percentile(modeled.samples, 0.99) },
      coldStartMs: { median: percentile(cold, 0.5), min: Math.min(...cold), max: Math.max(...cold) },
      spareStartMs: { median: percentile(warm, 0.5), min: Math.min(...warm), max: Math.max(...warm) },
      idleRssMb: {
        freshMedian: percentile(idleFresh, 0.5),
        responderAfterBench: rssMb(pidOf('responder')),
        driverAfterBench: rssMb(pidOf('driver')),
      },
    };
  } finally {
    await orchestrator.shutdown();
  }
}

/**
 * Peer: the same relay topology with bare Bun IPC and plain objects — a driver child times round trips to an echo
 * child, every message relayed by the parent (driver → parent → echo → parent → driver), no agent runtime. The
 * children stay up; each round asks the driver child for warm-up plus `roundTrips` round trips.
 */
async function startPeer(dir: string) {
  const driver = join(dir, 'peer-driver.js');
  const echo = join(dir, 'peer-echo.js');
  writeFileSync(
    driver,
    `let next = null;
     process.on('message', async (m) => {
       if (m.payload?.type === 'agent.reply') return next?.();
       if (m.start === undefined) return;
       const samples = [];
       for (let i = 0; i < m.start; i += 1) {
         const started = performance.now();
         await new Promise((resolve) => {
           next = resolve;
           process.send({ type: 'event', from: 'a/bench', to: 'b', payload: { id: 'evt' + i, type: 'agent.message', input: 'ping' } });
         });
         samples.push(performance.now() - started);
       }
       process.send({ samples });
     });
     process.on('disconnect', () => process.exit(0));
     process.send({ ready: true });`,
  );
  writeFileSync(
    echo,
    `process.on('message', (m) => process.send({ type: 'event', from: 'b/bench', to: 'a', payload: { id: m.payload.id, type: 'agent.reply', input: 'pong' } }));
     process.on('disconnect', () => process.exit(0));
     process.send({ ready: true });`,
  );
  const children: Record<string, ReturnType<typeof Bun.spawn>> = {};
  let done: (samples: number[]) => void = () => {};
  const ready: Promise<void>[] = [];
  for (const [name, file] of [
    ['a', driver],
    ['b', echo],
  ] as const) {
    let isReady: () => void = () => {};
    ready.push(new Promise((resolve) => (isReady = resolve)));
    children[name] = Bun.spawn([process.execPath, file], {
      serialization: 'json',
      stdio: ['ignore', 'ignore', 'inherit'],
      ipc(message) {
        if (message.ready) return isReady();
        if (message.samples) return done(message.samples);
        children[message.to]!.send(message);
      },
    });
  }
  await Promise.all(ready);
  return {
    async round(): Promise<number[]> {
      const finished = new Promise<number[]>((resolve) => (done = resolve));
      children.a!.send({ start: counts.warmup + counts.roundTrips });
      return (await finished).slice(counts.warmup);
    },
    stop() {
      for (const child of Object.values(children)) child.kill();
    },
  };
}

const dir = mkdtempSync(join(tmpdir(), 'gdn-bench-ipc-'));
const peerRelay = await startPeer(dir);
try {
  const result = await ours(dir, () => peerRelay.round());
  const peerResult = { roundTripMs: result.peerRoundTripMs };
  const ratio = result.roundTripMs.median / peerResult.roundTripMs.median;
  // Issue 15's goals: round trip ≤ 2× bare Bun IPC, ≥ 10,000 sends/s, cold spawn ≤ 100 ms.
  const rows: BenchRow[] = [
    {
      figure: 'agent→agent request round trip',
      unit: 'ms',
      ours: result.roundTripMs.median,
      oursP99: result.roundTripMs.p99,
      peer: peerResult.roundTripMs.median,
      peerP99: peerResult.roundTripMs.p99,
      peerName: 'bare Bun IPC relay',
      goal: '≤ 2× peer',
      met: ratio <= 2,
      note: 'the peer relays plain objects: no agent runtime, no turn, no span',
    },
    {
      figure: 'agent sends',
      unit: 'ops/s',
      ours: result.sendsPerSecond,
      goal: '≥ 10,000',
      met: result.sendsPerSecond >= 10_000,
    },
    { figure: 'concurrent agent requests', unit: 'ops/s', ours: result.concurrentRequestsPerSecond },
    {
      figure: 'model-turn responder round trip',
      unit: 'ms',
      ours: result.modelTurnRoundTripMs.median,
      oursP99: result.modelTurnRoundTripMs.p99,
    },
    {
      figure: 'cold spawn to ready',
      unit: 'ms',
      ours: result.coldStartMs.median,
      goal: '≤ 100 ms',
      met: result.coldStartMs.median <= 100,
    },
    {
      figure: 'idle agent process RSS',
      unit: 'MB',
      ours: result.idleRssMb.freshMedian,
      goal: '≤ 60 MB',
      met: result.idleRssMb.freshMedian <= 60,
    },
  ];
  if (json || process.env.GDN_BENCH_RUNNER === '1') report(rows);
  else {
    const f = (value: number, digits = 3) => value.toFixed(digits);
    console.log('inter-agent IPC through the Orchestrator (two agent processes, trivial responder)');
    console.log(
      `  request round trip   median ${f(result.roundTripMs.median)} ms   p99 ${f(result.roundTripMs.p99)} ms   (budget ≤ 1 ms median)`,
    );
    console.log(
      `  bare Bun IPC relay   median ${f(peerResult.roundTripMs.median)} ms   p99 ${f(peerResult.roundTripMs.p99)} ms   ratio ${ratio.toFixed(1)} (goal ≤ 2)`,
    );
    console.log(`  sends                ${Math.round(result.sendsPerSecond)} msgs/s (goal ≥ 10,000)`);
    console.log(`  concurrent requests  ${Math.round(result.concurrentRequestsPerSecond)} requests/s`);
    console.log(
      `  model-turn responder median ${f(result.modelTurnRoundTripMs.median)} ms   p99 ${f(result.modelTurnRoundTripMs.p99)} ms   (one scripted model step per turn)`,
    );
    console.log(
      `  spawn to ready       back to back median ${f(result.coldStartMs.median, 1)} ms   min ${f(result.coldStartMs.min, 1)}   max ${f(result.coldStartMs.max, 1)}`,
    );
    console.log(
      `  spawn to ready       spare warm median ${f(result.spareStartMs.median, 1)} ms   min ${f(result.spareStartMs.min, 1)}   max ${f(result.spareStartMs.max, 1)}   (budget ≤ 100 ms)`,
    );
    console.log(
      `  idle RSS             fresh ${f(result.idleRssMb.freshMedian, 1)} MB   responder after bench ${f(result.idleRssMb.responderAfterBench, 1)} MB   driver after bench ${f(result.idleRssMb.driverAfterBench, 1)} MB   (budget ≤ 60 MB)`,
    );
  }
} finally {
  peerRelay.stop();
  rmSync(dir, { recursive: true, force: true });
}
