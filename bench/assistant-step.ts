/**
 * What the assistant pack costs a Step (issue 13): catalog build + exposure for an agent with every Tool of the
 * base and assistant library bundles and the pack's exposure (Extension/assistant-exposure: a core always on,
 * other groups on demand), against an agent with only the base Tools and base tool exposure (all of them in the
 * baseline). Both are loaded from the real goondan.yaml files with their handlers (loadBundle + createAgentToolset);
 * rounds alternate which one runs first, and the figure is the median over rounds of each round's median.
 * Usage: npm run bench:assistant [-- --json]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assistantBundleDir } from '@goondan/assistant';
import { baseBundleDir } from '@goondan/base';
import {
  type AgentResource,
  createAgentToolset,
  type ExtensionApi,
  type JsonValue,
  loadBundle,
  type StepMiddleware,
  type ToolCatalogItem,
  type ToolResource,
} from '@goondan/core';
import { register as registerAssistantExposure } from '../packages/assistant/extensions/assistant-exposure/index.ts';
import { register as registerToolExposure } from '../packages/base/extensions/tool-exposure/index.ts';

const json = process.argv.includes('--json');
const rounds = 15;
const stepsPerRound = 400;

const dir = mkdtempSync(join(tmpdir(), 'gdn-bench-assistant-'));
writeFileSync(
  join(dir, 'goondan.yaml'),
  'apiVersion: goondan.ai/v1\nkind: Model\nmetadata: { name: demo }\nspec: { provider: scripted, model: demo, script: [] }\n',
);
const loaded = await loadBundle({ dir, libraries: [baseBundleDir, assistantBundleDir] });
if (!loaded.bundle) throw new Error(`bundle problems: ${JSON.stringify(loaded.problems)}`);
const bundle = loaded.bundle;
const tools = [...bundle.resources.values()].filter((resource): resource is ToolResource => resource.kind === 'Tool');
const tier = (tool: ToolResource) => (tool.metadata as { labels?: Record<string, string> }).labels?.tier;
const baseTools = tools.filter((tool) => tier(tool) === 'base').map((tool) => `Tool/${tool.metadata.name}`);
const packTools = tools.map((tool) => `Tool/${tool.metadata.name}`);

function agentOf(name: string, toolRefs: string[]): AgentResource {
  return {
    apiVersion: 'goondan.ai/v1',
    kind: 'Agent',
    metadata: { name },
    spec: { modelConfig: { modelRef: 'Model/demo' }, tools: toolRefs },
  } as unknown as AgentResource;
}

/** One agent's toolset with its exposure Extension registered through a minimal ExtensionApi. */
function setUp(name: string, toolRefs: string[], register: (api: ExtensionApi) => void, config: JsonValue) {
  const toolset = createAgentToolset({ bundle, handlers: loaded.handlers, agent: agentOf(name, toolRefs) });
  const stored = new Map<string, JsonValue>();
  const steps: StepMiddleware[] = [];
  const api = {
    extensionName: 'exposure',
    agentName: name,
    instanceKey: 'bench',
    workdir: dir,
    config,
    pipeline: {
      register(kind: string, middleware: unknown) {
        if (kind === 'step') steps.push(middleware as StepMiddleware);
      },
    },
    tools: {
      register: (item: ToolCatalogItem, handler: () => unknown) => toolset.registry.register(item, handler),
      unregister: (tool: string) => toolset.registry.unregister(tool),
      list: () => toolset.registry.list().map((entry) => entry.item),
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
  register(api);
  toolset.catalogBuilder.build();
  const outcome = { text: '', toolCalls: 0, finishReason: 'stop', usage: { inputTokens: 0, outputTokens: 0 } };
  let exposed = 0;
  /** One step's catalog work: the initial items, every step middleware, the final catalog. */
  async function step(): Promise<number> {
    let index = 0;
    const ctx = {
      agentName: name,
      instanceKey: 'bench',
      turnId: 'turn',
      stepIndex: 0,
      toolCatalog: toolset.catalogBuilder.initialItems(),
      messages: [],
      metadata: {},
      // Each middleware gets the same context; its next() runs the one after it, the last one builds the catalog.
      next: async (): Promise<unknown> => {
        const middleware = steps[index];
        index += 1;
        if (middleware) return await middleware(ctx as never);
        exposed = toolset.catalogBuilder.finalize(ctx.toolCatalog).size;
        return outcome;
      },
    };
    await ctx.next();
    return exposed;
  }
  return { step, inCatalog: toolset.catalogBuilder.initialItems().length };
}

const baseToolNames = createAgentToolset({ bundle, handlers: loaded.handlers, agent: agentOf('names', baseTools) })
  .catalogBuilder.build()
  .items.map((item) => item.name);
const base = setUp('base', baseTools, registerToolExposure, { baseline: baseToolNames });
const pack = setUp('pack', packTools, registerAssistantExposure, {});

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function roundOf(step: () => Promise<number>): Promise<number> {
  const samples: number[] = [];
  for (let index = 0; index < stepsPerRound; index += 1) {
    const start = Bun.nanoseconds();
    await step();
    samples.push((Bun.nanoseconds() - start) / 1000);
  }
  return median(samples);
}

const baseRounds: number[] = [];
const packRounds: number[] = [];
await roundOf(base.step);
await roundOf(pack.step);
for (let round = 0; round < rounds; round += 1) {
  if (round % 2 === 0) {
    baseRounds.push(await roundOf(base.step));
    packRounds.push(await roundOf(pack.step));
  } else {
    packRounds.push(await roundOf(pack.step));
    baseRounds.push(await roundOf(base.step));
  }
}
rmSync(dir, { recursive: true, force: true });

const result = {
  base: { inCatalog: base.inCatalog, exposed: await base.step(), usPerStep: Number(median(baseRounds).toFixed(1)) },
  pack: { inCatalog: pack.inCatalog, exposed: await pack.step(), usPerStep: Number(median(packRounds).toFixed(1)) },
  ratio: Number((median(packRounds) / median(baseRounds)).toFixed(2)),
  rounds,
  stepsPerRound,
};
if (json) {
  console.log(JSON.stringify(result));
} else {
  console.log('catalog build + exposure per Step (median of round medians, rounds interleaved)');
  for (const [label, row] of [
    ['base tools only', result.base],
    ['whole assistant pack', result.pack],
  ] as const) {
    console.log(
      `  ${label.padEnd(22)} ${String(row.inCatalog).padStart(4)} in the catalog  ${String(row.exposed).padStart(3)} sent to the model  ${row.usPerStep.toFixed(1).padStart(7)} µs/step`,
    );
  }
  console.log(`  ratio pack / base: ${result.ratio}`);
}
