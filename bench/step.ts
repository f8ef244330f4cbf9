/**
 * Runtime overhead per Step (issue: Agent runtime, DESIGN.md §4): a turn of two steps (one tool call, then text)
 * with the scripted model, for agents with 10 and 1,000 tools. Ours persists every message to SQLite and writes
 * trace spans; the peer is the AI SDK's own tool loop (streamText with execute + stepCountIs(2)) on the same
 * scripted model, which keeps everything in memory.
 * Usage: npm run bench:step [-- --json]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AgentInstance,
  type AgentResource,
  CatalogBuilder,
  ConversationStore,
  createScriptedModel,
  openInstanceDatabase,
  type ScriptedStep,
  ToolExecutor,
  ToolRegistry,
  TraceStore,
  userEvent,
} from '@goondan/core';
import { jsonSchema, stepCountIs, streamText, type ToolSet, tool } from 'ai';

const json = process.argv.includes('--json');
const turns = 300;
const schema = { type: 'object' as const, properties: { value: { type: 'integer' } }, required: ['value'] };

function script(count: number): ScriptedStep[] {
  const steps: ScriptedStep[] = [];
  for (let index = 0; index < count; index += 1) {
    steps.push({ toolCalls: [{ name: 'tool0__run', args: { value: index } }] }, { text: 'done' });
  }
  return steps;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function ours(size: number): Promise<number> {
  const registry = new ToolRegistry();
  const names: string[] = [];
  for (let index = 0; index < size; index += 1) {
    registry.register(
      {
        name: `tool${index}__run`,
        description: `Tool ${index}`,
        parameters: schema,
        source: { type: 'config', name: `tool${index}` },
      },
      () => ({ ok: true }),
    );
    names.push(`tool${index}`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'gdn-bench-step-'));
  const db = openInstanceDatabase(join(dir, 'state.db'));
  const agent = { apiVersion: 'goondan.ai/v1', kind: 'Agent', metadata: { name: 'bench' }, spec: {} } as AgentResource;
  const instance = new AgentInstance({
    agent,
    instanceKey: 'bench',
    toolset: {
      agent,
      registry,
      catalogBuilder: new CatalogBuilder(registry, names),
      executor: new ToolExecutor({ registry }),
    },
    model: createScriptedModel(script(turns + 20)),
    conversation: new ConversationStore(db),
    traces: new TraceStore(db),
    workdir: dir,
  });
  const samples: number[] = [];
  for (let turn = 0; turn < turns + 20; turn += 1) {
    const start = Bun.nanoseconds();
    const result = await instance.enqueue(userEvent('go'));
    const elapsed = Bun.nanoseconds() - start;
    if (result.status !== 'completed' || result.steps !== 2)
      throw new Error(`unexpected turn ${JSON.stringify(result)}`);
    if (turn >= 20) samples.push(elapsed / 2);
    instance.reset();
  }
  await instance.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return median(samples);
}

async function aiSdkLoop(size: number): Promise<number> {
  const tools: ToolSet = {};
  for (let index = 0; index < size; index += 1) {
    tools[`tool${index}__run`] = tool({
      description: `Tool ${index}`,
      inputSchema: jsonSchema(schema),
      execute: async () => ({ ok: true }),
    });
  }
  const model = createScriptedModel(script(turns + 20));
  const samples: number[] = [];
  for (let turn = 0; turn < turns + 20; turn += 1) {
    const start = Bun.nanoseconds();
    const result = streamText({ model, messages: [{ role: 'user', content: 'go' }], tools, stopWhen: stepCountIs(2) });
    for await (const _part of result.fullStream) {
      // drain
    }
    const steps = await result.steps;
    const elapsed = Bun.nanoseconds() - start;
    if (steps.length !== 2) throw new Error(`unexpected ${steps.length} steps`);
    if (turn >= 20) samples.push(elapsed / 2);
  }
  return median(samples);
}

const results = [];
for (const size of [10, 1_000]) {
  const oursNs = await ours(size);
  const peerNs = await aiSdkLoop(size);
  results.push({
    tools: size,
    nsPerStep: Math.round(oursNs),
    aiSdkLoopNsPerStep: Math.round(peerNs),
    ratio: Number((oursNs / peerNs).toFixed(2)),
  });
}
if (json) {
  console.log(JSON.stringify({ results }));
} else {
  console.log(
    'runtime overhead per Step (scripted model; ours persists to SQLite and traces, the AI SDK loop keeps memory only)',
  );
  for (const row of results) {
    console.log(
      `  ${String(row.tools).padStart(5)} tools  ours ${(row.nsPerStep / 1000).toFixed(0).padStart(6)} µs/step   AI SDK loop ${(row.aiSdkLoopNsPerStep / 1000).toFixed(0).padStart(6)} µs/step   ratio ${row.ratio}`,
    );
  }
}
