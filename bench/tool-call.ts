/**
 * Tool-call pipeline overhead (DESIGN.md §4): guard + validation + 2 pass-through middlewares + result, with a
 * no-op handler, for catalogs of 10, 1,000 and 10,000 tools. `-- --json` prints one JSON object.
 * Usage: npm run bench:tool-call [-- --json]
 */
import {
  CatalogBuilder,
  type Message,
  type ToolCallMiddleware,
  type ToolCatalogItem,
  ToolExecutor,
  ToolRegistry,
} from '@goondan/core';

const sizes = [10, 1_000, 10_000];
const json = process.argv.includes('--json');
const message: Message = {
  id: 'msg_bench',
  data: { role: 'assistant', content: [] },
  metadata: {},
  createdAt: new Date(0),
  source: { type: 'assistant' },
};
const scope = { agentName: 'bench', instanceKey: 'bench', turnId: 'turn', message, workdir: '/tmp', logger: console };
const passThrough = (): ToolCallMiddleware =>
  async function passThroughMiddleware(ctx) {
    return ctx.next();
  };

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function measure(size: number) {
  const registry = new ToolRegistry();
  const names: string[] = [];
  for (let index = 0; index < size; index += 1) {
    const item: ToolCatalogItem = {
      name: `tool${index}__run`,
      description: `Tool number ${index}`,
      parameters: { type: 'object', properties: { value: { type: 'integer' } }, required: ['value'] },
      source: { type: 'config', name: `tool${index}` },
    };
    registry.register(item, () => null);
    names.push(item.name);
  }
  const builder = new CatalogBuilder(
    registry,
    names.map((name) => name.split('__')[0]!),
  );
  const catalog = builder.finalize(builder.initialItems());
  const executor = new ToolExecutor({ registry, middlewares: [passThrough(), passThrough()] });
  const target = names[Math.floor(size / 2)]!;
  const call = { id: 'call', name: target, args: { value: 1 } };
  for (let warm = 0; warm < 20_000; warm += 1) await executor.execute(call, { catalog, scope });
  const batch = 1_000;
  const samples: number[] = [];
  for (let round = 0; round < 50; round += 1) {
    const start = Bun.nanoseconds();
    for (let index = 0; index < batch; index += 1) {
      const result = await executor.execute(call, { catalog, scope });
      if (result.status !== 'ok') throw new Error(`unexpected ${JSON.stringify(result)}`);
    }
    samples.push((Bun.nanoseconds() - start) / batch);
  }
  const nsPerCall = median(samples);
  return { tools: size, nsPerCall: Math.round(nsPerCall), callsPerSecond: Math.round(1e9 / nsPerCall) };
}

const results = [];
for (const size of sizes) results.push(await measure(size));
if (json) {
  console.log(JSON.stringify({ results }));
} else {
  console.log('tool-call pipeline overhead (guard + validation + 2 middlewares + no-op handler)');
  for (const row of results) {
    console.log(
      `  ${String(row.tools).padStart(6)} tools  ${String(row.nsPerCall).padStart(6)} ns/call (median)  ${row.callsPerSecond.toLocaleString('en-US')} calls/s`,
    );
  }
  console.log('  budget: ≤ 2,000 ns/call median, flat across catalog sizes (DESIGN.md §4)');
}
