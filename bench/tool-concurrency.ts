/**
 * 100 async tool calls (each waits 5 ms) in one step, then a text step, wall clock per turn: ours with the Agent's
 * `toolConcurrency: 100` and with the default (4), against the AI SDK's own loop (streamText with execute, which
 * runs every call of a step at once) on the same scripted model. Ours also validates, checks permissions, audits
 * and persists each call. Usage: npm run bench:concurrency [-- --json]
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
import { jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { type BenchRow, compare, report } from './harness.ts';

const calls = 100;
const waitMs = 5;
const rounds = 15;
const warmup = 3;
const schema = { type: 'object' as const, properties: { index: { type: 'integer' } } };

function script(turns: number): ScriptedStep[] {
  const steps: ScriptedStep[] = [];
  for (let turn = 0; turn < turns; turn += 1) {
    steps.push(
      { toolCalls: Array.from({ length: calls }, (_, index) => ({ name: 'slow__wait', args: { index } })) },
      { text: 'done' },
    );
  }
  return steps;
}

function ours(toolConcurrency: number | undefined) {
  const registry = new ToolRegistry();
  registry.register({ name: 'slow__wait', parameters: schema, source: { type: 'config', name: 'slow' } }, async () => {
    await Bun.sleep(waitMs);
    return { ok: true };
  });
  const dir = mkdtempSync(join(tmpdir(), 'gdn-bench-concurrency-'));
  const db = openInstanceDatabase(join(dir, 'state.db'));
  const agent = { apiVersion: 'goondan.ai/v1', kind: 'Agent', metadata: { name: 'bench' }, spec: {} } as AgentResource;
  const instance = new AgentInstance({
    agent,
    instanceKey: 'bench',
    toolset: {
      agent,
      registry,
      catalogBuilder: new CatalogBuilder(registry, ['slow']),
      executor: new ToolExecutor({ registry }),
      unavailable: new Map(),
    },
    model: createScriptedModel(script(2 * (rounds + warmup))),
    conversation: new ConversationStore(db),
    traces: new TraceStore(db),
    workdir: dir,
    ...(toolConcurrency === undefined ? {} : { toolConcurrency }),
  });
  return {
    turn: async () => {
      const started = performance.now();
      const result = await instance.enqueue(userEvent('go'));
      const elapsed = performance.now() - started;
      if (result.status !== 'completed') throw new Error(`unexpected ${JSON.stringify(result)}`);
      instance.reset();
      return elapsed;
    },
    close: async () => {
      await instance.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const model = createScriptedModel(script(3 * (rounds + warmup)));
const tools = {
  slow__wait: tool({
    inputSchema: jsonSchema(schema),
    execute: async () => {
      await Bun.sleep(waitMs);
      return { ok: true };
    },
  }),
};
async function aiSdkTurn(): Promise<number> {
  const started = performance.now();
  const result = streamText({ model, messages: [{ role: 'user', content: 'go' }], tools, stopWhen: stepCountIs(2) });
  for await (const _part of result.fullStream) {
    // drain
  }
  if ((await result.steps).length !== 2) throw new Error('unexpected step count');
  return performance.now() - started;
}

const rows: BenchRow[] = [];
for (const [label, setting] of [
  ['toolConcurrency: 100', 100],
  ['default toolConcurrency (4)', undefined],
] as const) {
  const side = ours(setting);
  const { ours: o, peer: p } = await compare({ rounds, warmup, ours: side.turn, peer: aiSdkTurn });
  await side.close();
  rows.push({
    figure: `${calls} async calls (${waitMs} ms each) in a step + a text step, ${label}`,
    unit: 'ms',
    ours: o.median,
    oursP99: o.p99,
    peer: p.median,
    peerP99: p.p99,
    peerName: 'AI SDK loop',
    ...(setting === undefined ? {} : { goal: '≤ 1.3× peer', met: o.median <= 1.3 * p.median }),
  });
}

report(rows);
