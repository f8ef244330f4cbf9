/**
 * gdn serve's HTTP API (issue 12): one chat completion round trip — POST /v1/chat/completions to a `gdn serve`
 * process, its Orchestrator, the agent process, one scripted model step, the reply — against the same turn run
 * the way `gdn run` runs it in-process (openAgentInstance + enqueue, no HTTP, no IPC). For where the difference
 * goes, also the same turn through an Orchestrator in this process (`gdn run` with a Swarm: IPC, no HTTP), and the
 * streamed (SSE) variant. Rounds are interleaved, so a loaded machine slows every path alike.
 * Usage: bun bench/http-api.ts [--json]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { baseBundleDir } from '@goondan/base';
import {
  type AgentResource,
  loadBundle,
  Orchestrator,
  openAgentInstance,
  resolveSwarm,
  userEvent,
} from '@goondan/core';

const json = process.argv.includes('--json');
const rounds = 10;
const perRound = 30;
const warmup = 20;
const mainTs = resolve(import.meta.dir, '..', 'packages', 'cli', 'src', 'main.ts');

// An empty script: every call is one model step answering with a short text (the scripted model's "ended" reply).
const yaml = `apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: bench }
spec: { entryAgent: Agent/echo, agents: [Agent/echo] }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: echo }
spec: { modelConfig: { modelRef: Model/scripted } }
---
apiVersion: goondan.ai/v1
kind: Model
metadata: { name: scripted }
spec: { provider: scripted, model: bench, script: [] }
`;

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

async function startServe(dir: string) {
  const proc = Bun.spawn([process.execPath, mainTs, 'serve', '--bundle', dir, '--port', '0'], {
    stdout: 'ignore',
    stderr: 'pipe',
    env: { ...process.env, NO_COLOR: '1' },
  });
  let text = '';
  const decoder = new TextDecoder();
  for await (const chunk of proc.stderr) {
    text += decoder.decode(chunk, { stream: true });
    const url = /base URL: (\S+)\/v1/.exec(text)?.[1];
    if (url) return { proc, url };
  }
  throw new Error(`gdn serve did not start:\n${text}`);
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'gdn-bench-http-'));
  writeFileSync(join(dir, 'goondan.yaml'), yaml);
  const { proc, url } = await startServe(dir);
  const loaded = await loadBundle({ dir, libraries: [baseBundleDir] });
  if (!loaded.bundle) throw new Error('bench bundle invalid');
  const bundle = loaded.bundle;
  const instance = await openAgentInstance({
    bundle,
    handlers: loaded.handlers,
    agent: bundle.resources.get('Agent/echo') as AgentResource,
    instanceKey: 'bench-in-process',
  });
  const orchestrator = new Orchestrator({
    bundle,
    topology: resolveSwarm(bundle)!,
    instanceKey: 'bench-orchestrator',
    libraries: [baseBundleDir],
    stateFile: null,
    onOutput: () => {},
  });
  const chat = async (stream: boolean) => {
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goondan-instance': stream ? 'bench-sse' : 'bench-http' },
      body: JSON.stringify({ model: 'echo', stream, messages: [{ role: 'user', content: 'ping' }] }),
    });
    if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
    const body = await response.text();
    if (stream && !body.endsWith('data: [DONE]\n\n')) throw new Error(`stream did not end: ${body}`);
  };
  const paths = {
    http: () => chat(false),
    httpStream: () => chat(true),
    orchestrator: () => orchestrator.request({ input: 'ping', target: 'echo' }),
    inProcess: () => instance.enqueue(userEvent('ping', 'bench')),
  };
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(paths).map((name) => [name, []]));
  const runs: [string, () => Promise<unknown>][] = Object.entries(paths);
  try {
    for (const [, run] of runs) for (let i = 0; i < warmup; i += 1) await run();
    for (let round = 0; round < rounds; round += 1) {
      for (const [name, run] of runs) {
        for (let i = 0; i < perRound; i += 1) {
          const start = performance.now();
          await run();
          samples[name]!.push(performance.now() - start);
        }
      }
    }
  } finally {
    await orchestrator.shutdown({ reason: 'bench done' });
    await instance.close();
    proc.kill('SIGTERM');
    await proc.exited;
    rmSync(dir, { recursive: true, force: true });
  }
  const statsOf = (name: keyof typeof paths) => {
    const values = samples[name] ?? [];
    return { median: percentile(values, 0.5), p99: percentile(values, 0.99) };
  };
  const stats = {
    http: statsOf('http'),
    httpStream: statsOf('httpStream'),
    orchestrator: statsOf('orchestrator'),
    inProcess: statsOf('inProcess'),
  };
  const ratio = stats.http.median / stats.inProcess.median;
  const overIpc = stats.http.median / stats.orchestrator.median;
  if (json) {
    console.log(
      JSON.stringify({
        samplesPerPath: rounds * perRound,
        roundTripMs: stats,
        ratioHttpToInProcess: Number(ratio.toFixed(2)),
        ratioHttpToOrchestrator: Number(overIpc.toFixed(2)),
      }),
    );
    return;
  }
  const f = (value: number) => value.toFixed(2).padStart(7);
  console.log(
    `gdn serve HTTP API: one chat completion round trip, one scripted model step (${rounds}×${perRound} interleaved)`,
  );
  console.log(`  HTTP (gdn serve process)         median ${f(stats.http.median)} ms   p99 ${f(stats.http.p99)} ms`);
  console.log(
    `  HTTP, streamed (SSE)             median ${f(stats.httpStream.median)} ms   p99 ${f(stats.httpStream.p99)} ms`,
  );
  console.log(
    `  Orchestrator in-process (IPC)    median ${f(stats.orchestrator.median)} ms   p99 ${f(stats.orchestrator.p99)} ms`,
  );
  console.log(
    `  gdn run in-process (no IPC)      median ${f(stats.inProcess.median)} ms   p99 ${f(stats.inProcess.p99)} ms`,
  );
  console.log(`  ratio HTTP / in-process ${ratio.toFixed(2)}   HTTP / Orchestrator ${overIpc.toFixed(2)}`);
}

await main();
