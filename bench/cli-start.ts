/**
 * Start-up and memory of the CLI (issue 15), each side a fresh process, sides interleaved, against a local HTTP
 * server speaking the OpenAI Chat Completions stream:
 * - `gdn --version` (wall clock) against a bare `bun -e ''`, and once more with a secret-looking variable in the
 *   environment (gdn then starts itself again with the secret kept out of /proc/PID/environ, docs/security.md);
 * - `gdn run` from spawn to the model request reaching the server, and its peak RSS, against a bare AI SDK script
 *   (bench/peers/ai-sdk-run.ts: streamText to the same server). gdn does more before the request: it loads and
 *   validates the bundle, opens the instance database, takes the writer lock, stores the input;
 * - an idle agent instance opened as an agent process does (bench/peers/idle-agent.ts) against importing `ai`.
 * Usage: npm run bench:cli [-- --json]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBundle } from '@goondan/core';
import { bundleToJson } from '../packages/core/src/orchestrator/bundle-transfer.ts';
import { type BenchRow, compare, report, side } from './harness.ts';

const root = join(import.meta.dir, '..');
const gdn = join(root, 'packages', 'cli', 'bin', 'gdn');
const rounds = Number(process.env.BENCH_ROUNDS ?? 10);
const arrivals: number[] = [];
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  fetch(request) {
    if (request.method !== 'POST') return new Response('not found', { status: 404 });
    arrivals.push(performance.now());
    const chunk = (body: object) => `data: ${JSON.stringify(body)}\n\n`;
    const base = { id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'bench-model' };
    const text =
      chunk({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'ok' }, finish_reason: null }] }) +
      chunk({
        ...base,
        choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      }) +
      'data: [DONE]\n\n';
    return new Response(text, { headers: { 'content-type': 'text/event-stream' } });
  },
});
const baseURL = `http://127.0.0.1:${server.port}/v1`;
const dir = mkdtempSync(join(tmpdir(), 'gdn-bench-cli-'));
writeFileSync(
  join(dir, 'goondan.yaml'),
  `apiVersion: goondan.ai/v1
kind: Model
metadata: { name: main }
spec: { provider: openai-compatible, model: bench-model, baseURL: "${baseURL}" }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: bench }
spec:
  modelConfig: { modelRef: Model/main }
`,
);
// Only what a start needs: a shell's secret-looking variables would make every gdn start twice (measured apart).
const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, TMPDIR: tmpdir(), BENCH_BASE_URL: baseURL };

interface Run {
  wallMs: number;
  firstByteMs: number | null;
  maxRssMB: number;
  /** User + system CPU time of the whole process: steadier than the wall clock on a busy machine. */
  cpuMs: number;
  stdout: string;
}

async function spawnOnce(cmd: string[], extraEnv: Record<string, string> = {}): Promise<Run> {
  const before = arrivals.length;
  const started = performance.now();
  const child = Bun.spawn(cmd, { cwd: dir, env: { ...env, ...extraEnv }, stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  const wallMs = performance.now() - started;
  if (code !== 0) throw new Error(`${cmd.join(' ')} exited ${code}: ${stderr}`);
  const arrived = arrivals[before];
  return {
    wallMs,
    firstByteMs: arrived === undefined ? null : arrived - started,
    maxRssMB: (child.resourceUsage()?.maxRSS ?? 0) / 1024 / 1024,
    cpuMs: Number((child.resourceUsage()?.cpuTime.total ?? 0n) / 1000n),
    stdout,
  };
}

const rows: BenchRow[] = [];
try {
  {
    const { ours, peer } = await compare({
      rounds,
      warmup: 2,
      ours: async () => (await spawnOnce([gdn, '--version'])).wallMs,
      peer: async () => (await spawnOnce([process.execPath, '-e', ''])).wallMs,
    });
    rows.push({
      figure: 'gdn --version, wall clock',
      unit: 'ms',
      ours: ours.median,
      oursP99: ours.p99,
      peer: peer.median,
      peerP99: peer.p99,
      peerName: "bun -e ''",
      goal: '≤ 150 ms',
      met: ours.median <= 150,
    });
    const sealedSamples: number[] = [];
    for (let index = 0; index < rounds; index += 1) {
      sealedSamples.push((await spawnOnce([gdn, '--version'], { BENCH_API_TOKEN: 'x'.repeat(40) })).wallMs);
    }
    const sealed = side(sealedSamples);
    rows.push({
      figure: 'gdn --version with a secret in the environment (re-exec)',
      unit: 'ms',
      ours: sealed.median,
      oursP99: sealed.p99,
      note: 'gdn starts itself again so the secret is not in /proc/PID/environ',
    });
  }
  {
    const gdnRss: number[] = [];
    const peerRss: number[] = [];
    const gdnCpu: number[] = [];
    const peerCpu: number[] = [];
    let instance = 0;
    const { ours, peer } = await compare({
      rounds,
      warmup: 2,
      ours: async () => {
        instance += 1;
        const run = await spawnOnce([gdn, 'run', '--bundle', dir, '--instance', `bench-${instance}`, '--input', 'hi']);
        if (run.firstByteMs === null) throw new Error('gdn run made no model request');
        gdnRss.push(run.maxRssMB);
        gdnCpu.push(run.cpuMs);
        return run.firstByteMs;
      },
      peer: async () => {
        const run = await spawnOnce([process.execPath, join(import.meta.dir, 'peers', 'ai-sdk-run.ts')]);
        if (run.firstByteMs === null) throw new Error('the AI SDK script made no model request');
        peerRss.push(run.maxRssMB);
        peerCpu.push(run.cpuMs);
        return run.firstByteMs;
      },
    });
    rows.push({
      figure: 'gdn run: spawn → first byte to the model',
      unit: 'ms',
      ours: ours.median,
      oursP99: ours.p99,
      peer: peer.median,
      peerP99: peer.p99,
      peerName: 'AI SDK script',
      goal: '≤ 2× peer',
      met: ours.median <= 2 * peer.median,
    });
    const oursCpu = side(gdnCpu.slice(2));
    const peerCpuSide = side(peerCpu.slice(2));
    rows.push({
      figure: 'gdn run: CPU time of the whole run (user + system)',
      unit: 'ms',
      ours: oursCpu.median,
      oursP99: oursCpu.p99,
      peer: peerCpuSide.median,
      peerP99: peerCpuSide.p99,
      peerName: 'AI SDK script',
    });
    const oursRss = side(gdnRss.slice(2));
    const peerRssSide = side(peerRss.slice(2));
    rows.push({
      figure: 'gdn run: peak RSS',
      unit: 'MB',
      ours: oursRss.median,
      oursP99: oursRss.p99,
      peer: peerRssSide.median,
      peerP99: peerRssSide.p99,
      peerName: 'AI SDK script',
      goal: '≤ 1.5× peer',
      met: oursRss.median <= 1.5 * peerRssSide.median,
    });
  }
  {
    const rss = async (script: string, args: string[]) => {
      const run = await spawnOnce([process.execPath, join(import.meta.dir, 'peers', script), ...args]);
      return (JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { rss: number }).rss / 1024 / 1024;
    };
    // The bundle as the orchestrator hands it to an agent process.
    const loaded = await loadBundle({ dir, checkEntries: false });
    if (!loaded.bundle) throw new Error(JSON.stringify(loaded.problems));
    const bundleFile = join(dir, 'bundle.json');
    writeFileSync(bundleFile, JSON.stringify(bundleToJson(loaded.bundle)));
    const { ours, peer } = await compare({
      rounds: Math.max(3, Math.floor(rounds / 2)),
      warmup: 1,
      ours: () => rss('idle-agent.ts', [bundleFile]),
      peer: () => rss('ai-sdk-run.ts', ['--idle']),
    });
    rows.push({
      figure: 'idle agent instance: RSS after GC',
      unit: 'MB',
      ours: ours.median,
      peer: peer.median,
      peerName: "import('ai')",
      goal: '≤ peer + 5 MB',
      met: ours.median <= peer.median + 5,
    });
  }
} finally {
  server.stop(true);
  rmSync(dir, { recursive: true, force: true });
}

report(rows);
