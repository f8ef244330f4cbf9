/**
 * Catalog and tool-search cost with 10,000 registered tools (DESIGN.md §4: catalog construction per Step ≤ 1 ms).
 * - catalog: CatalogBuilder.initialItems() + finalize() per step, alone and with the tool-exposure step middleware
 *   (steady state, and the uncached filter a change of exposure costs);
 * - tool-search: building the index once, re-syncing an unchanged registry, syncing one added tool, and the
 *   median query time over a mix of exact, multi-word, prefix and misspelt queries.
 * Usage: npm run bench:catalog [-- --json]
 */
import type { ExtensionApi, JsonValue, StepMiddleware, ToolCatalogItem } from '@goondan/core';
import { CatalogBuilder, ToolRegistry } from '@goondan/core';
import { exposeCatalog } from '../packages/base/extensions/tool-exposure/expose-catalog.ts';
import { register as registerExposure } from '../packages/base/extensions/tool-exposure/index.ts';
import { ToolIndex } from '../packages/base/extensions/tool-search/tool-index.ts';

const json = process.argv.includes('--json');
const size = 10_000;
const verbs = ['get', 'list', 'create', 'update', 'delete', 'search', 'send', 'sync', 'export', 'import'];
const nouns = ['invoice', 'ticket', 'calendar', 'contact', 'file', 'image', 'message', 'repo', 'order', 'metric'];

function makeTool(index: number): ToolCatalogItem {
  const noun = nouns[index % nouns.length]!;
  const verb = verbs[Math.floor(index / nouns.length) % verbs.length]!;
  return {
    name: `${noun}${index}__${verb}`,
    description: `${verb[0]!.toUpperCase()}${verb.slice(1)} ${noun} records of service ${index} and return them as JSON.`,
    parameters: {
      type: 'object',
      properties: {
        [`${noun}Id`]: { type: 'string', description: `Identifier of the ${noun}.` },
        limit: { type: 'integer', description: 'How many items at most.' },
      },
      required: [`${noun}Id`],
    },
    source: { type: 'config', name: `${noun}${index}` },
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Median microseconds of `work` over `runs` runs after `warmup` unmeasured ones. */
async function measure(work: () => unknown, runs = 1000, warmup = 100): Promise<number> {
  const samples: number[] = [];
  for (let run = 0; run < warmup + runs; run += 1) {
    const start = Bun.nanoseconds();
    await work();
    if (run >= warmup) samples.push((Bun.nanoseconds() - start) / 1000);
  }
  return median(samples);
}

const round = (value: number) => Math.round(value * 10) / 10;

// The registry and catalog of one agent with 10,000 tools, all in its spec.tools.
const registry = new ToolRegistry();
const resources: string[] = [];
for (let index = 0; index < size; index += 1) {
  const item = makeTool(index);
  registry.register(item, () => null);
  resources.push(item.source!.name);
}
const builder = new CatalogBuilder(registry, resources);
builder.build();

// tool-exposure registered through a minimal ExtensionApi: 20 baseline tools, 5 enabled on demand.
const stored = new Map<string, JsonValue>();
let exposureStep: StepMiddleware | undefined;
const api = {
  extensionName: 'tool-exposure',
  agentName: 'bench',
  instanceKey: 'bench',
  config: { baseline: Array.from({ length: 20 }, (_, index) => makeTool(index * 500).name) },
  pipeline: {
    register(kind: string, middleware: unknown) {
      if (kind === 'step') exposureStep = middleware as StepMiddleware;
    },
  },
  tools: {
    register: (item: ToolCatalogItem, handler: () => unknown) => registry.register(item, handler),
    unregister: (name: string) => registry.unregister(name),
    list: () => registry.list().map((tool) => tool.item),
  },
  state: {
    get: (key: string) => stored.get(key),
    set: (key: string, value: JsonValue) => stored.set(key, value),
    delete: (key: string) => stored.delete(key),
  },
  logger: console,
  onConversationReset() {},
  onClose() {},
} as unknown as ExtensionApi;
const enabledNames = Array.from({ length: 5 }, (_, index) => makeTool(index * 700 + 3).name);
stored.set('exposure', { enabled: Object.fromEntries(enabledNames.map((name) => [name, Date.now() + 3_600_000])) });
registerExposure(api);
builder.build();

const outcome = { text: '', toolCalls: 0, finishReason: 'stop', usage: { inputTokens: 0, outputTokens: 0 } };
let exposedSize = 0;
async function stepWithExposure(): Promise<void> {
  const ctx = {
    agentName: 'bench',
    instanceKey: 'bench',
    turnId: 'turn',
    stepIndex: 0,
    toolCatalog: builder.initialItems(),
    messages: [],
    metadata: {},
    next: async () => {
      exposedSize = builder.finalize(ctx.toolCatalog).size;
      return outcome;
    },
  };
  await exposureStep!(ctx);
}

const baselineSet = new Set(api.config.baseline as string[]);
const enabledMap = new Map(enabledNames.map((name) => [name, 1]));
const catalog = {
  tools: size,
  builderUs: round(await measure(() => builder.finalize(builder.initialItems()))),
  withExposureUs: round(await measure(stepWithExposure)),
  exposureFilterUncachedUs: round(
    await measure(() => builder.finalize(exposeCatalog(builder.initialItems(), baselineSet, enabledMap))),
  ),
  exposedTools: exposedSize,
};

// tool-search over the same 10,000 tools.
const items = registry.list().map((tool) => tool.item);
const index = new ToolIndex((name) => name.startsWith('tools__'));
const buildStart = Bun.nanoseconds();
index.sync(items);
const indexBuildMs = (Bun.nanoseconds() - buildStart) / 1e6;
const queries = [
  'invoice',
  'send message',
  'calendar get',
  'imag',
  'contakt',
  'metric export json',
  'repo4321',
  'limit',
];
let queryRound = 0;
const search = {
  tools: index.size,
  indexBuildMs: round(indexBuildMs),
  resyncUnchangedUs: round(await measure(() => index.sync(registry.list().map((tool) => tool.item)), 200, 20)),
  syncOneAddedMs: 0,
  queryMedianUs: round(await measure(() => index.query(queries[queryRound++ % queries.length]!, 10), 400, 40)),
};
const added = [...items, makeTool(size)];
const addStart = Bun.nanoseconds();
index.sync(added);
search.syncOneAddedMs = round((Bun.nanoseconds() - addStart) / 1e6);

const results = { catalog, search };
if (json) {
  console.log(JSON.stringify({ results }));
} else {
  console.log(`catalog per step, ${size} tools (budget 1000 µs)`);
  console.log(`  initialItems + finalize (no middleware)          ${catalog.builderUs} µs`);
  console.log(
    `  initialItems + tool-exposure (steady) + finalize ${catalog.withExposureUs} µs  (${catalog.exposedTools} exposed)`,
  );
  console.log(`  initialItems + filter uncached + finalize        ${catalog.exposureFilterUncachedUs} µs`);
  console.log(`tool-search, ${search.tools} tools`);
  console.log(`  index build (once)                               ${search.indexBuildMs} ms`);
  console.log(`  re-sync, registry unchanged                      ${search.resyncUnchangedUs} µs`);
  console.log(`  sync, one tool added                             ${search.syncOneAddedMs} ms`);
  console.log(`  query, median                                    ${search.queryMedianUs} µs`);
}
