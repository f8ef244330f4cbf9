/**
 * The bundle of the inter-agent benches (bench/ipc.ts, bench/transport.ts): a driver whose tool calls ctx.agents
 * in a loop and writes its samples to bench.json in its workspace, and a responder whose turn middleware answers
 * at once without a model call (the turn still runs: FIFO, turn span, reply event).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const benchTool = `
export const handlers = {
  run: async (ctx, input) => {
    const target = input.target;
    const ask = () => ctx.agents.request({ target, input: 'ping' });
    for (let i = 0; i < input.warmup; i += 1) await ask();
    const samples = [];
    for (let i = 0; i < input.roundTrips; i += 1) {
      const start = performance.now();
      await ask();
      samples.push(performance.now() - start);
    }
    let throughput = null;
    let concurrent = null;
    if (input.sends > 0) {
      let start = performance.now();
      for (let i = 0; i < input.sends; i += 1) ctx.agents.send({ target, input: 'x' });
      await ask(); // FIFO: every send has been handled once this answers
      throughput = input.sends / ((performance.now() - start) / 1000);
      start = performance.now();
      const batch = [];
      for (let i = 0; i < input.concurrent; i += 1) batch.push(ask());
      await Promise.all(batch);
      concurrent = input.concurrent / ((performance.now() - start) / 1000);
    }
    await Bun.write(ctx.workdir + '/bench.json', JSON.stringify({ samples, throughput, concurrent }));
    return { ok: true };
  },
};
`;

export const trivialExtension = `
export function register(api) {
  api.pipeline.register('turn', async (ctx) => ({
    turnId: ctx.turnId, traceId: 'bench', eventId: ctx.event.id, status: 'completed', text: 'pong', steps: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
  }));
}
`;

export interface RelayCounts {
  warmup: number;
  roundTrips: number;
  sends: number;
  concurrent: number;
}

/** One driver turn: a bench run against `target`, then an answer. */
export function benchTurn(target: string, counts: RelayCounts): object[] {
  return [{ toolCalls: [{ name: 'bench__run', args: { target, ...counts } }] }, { text: 'done' }];
}

/** Writes goondan.yaml and the two modules; `driverScript` is the driver's scripted model (benchTurn, …). */
export function writeRelayBundle(dir: string, driverScript: object[]): void {
  const documents = [
    {
      kind: 'Swarm',
      metadata: { name: 'bench' },
      spec: { entryAgent: 'Agent/driver', agents: ['Agent/driver', 'Agent/responder', 'Agent/modeled'] },
    },
    {
      kind: 'Agent',
      metadata: { name: 'driver' },
      spec: { modelConfig: { modelRef: 'Model/driver' }, tools: ['Tool/agents', 'Tool/bench'] },
    },
    {
      kind: 'Agent',
      metadata: { name: 'responder' },
      spec: { modelConfig: { modelRef: 'Model/idle' }, extensions: ['Extension/trivial'] },
    },
    { kind: 'Agent', metadata: { name: 'modeled' }, spec: { modelConfig: { modelRef: 'Model/idle' } } },
    {
      kind: 'Model',
      metadata: { name: 'driver' },
      spec: {
        provider: 'scripted',
        model: 'driver',
        script: driverScript,
      },
    },
    // The modeled responder's script runs out at once: every turn is one model call answering a fixed text.
    { kind: 'Model', metadata: { name: 'idle' }, spec: { provider: 'scripted', model: 'idle', script: [] } },
    {
      kind: 'Tool',
      metadata: { name: 'bench' },
      spec: { entry: './bench-tool.js', timeoutMs: 600000, exports: [{ name: 'run', parameters: { type: 'object' } }] },
    },
    { kind: 'Extension', metadata: { name: 'trivial' }, spec: { entry: './trivial.js' } },
  ];
  const yaml = documents
    .map((document) => JSON.stringify({ apiVersion: 'goondan.ai/v1', ...document }))
    .join('\n---\n');
  writeFileSync(join(dir, 'goondan.yaml'), yaml);
  writeFileSync(join(dir, 'bench-tool.js'), benchTool);
  writeFileSync(join(dir, 'trivial.js'), trivialExtension);
}

/** What the driver's last bench turn wrote. */
export function benchFile(dir: string, instanceKey: string): string {
  return join(dir, '.goondan', 'workspaces', 'driver', instanceKey, 'bench.json');
}
