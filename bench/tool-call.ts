/**
 * Tool-call pipeline cost (DESIGN.md §4): catalog guard + permissions + Ajv validation + 2 pass-through toolCall
 * middlewares + handler + result, for catalogs of 10, 1,000 and 10,000 tools, against a peer written here in the
 * shape of the original Goondan executor: the catalog and the registry as arrays searched by name (a linear scan),
 * `await Promise.resolve(handler(ctx, args))`, the result wrapped in an object, a throw turned into an error result.
 * The peer does less: no argument validation, no permissions, no middleware, no timeout, no per-call context (one
 * shared object), no output JSON-safety or size cap.
 * Then: an async handler (ours answers a timeout through one shared timer per timeout length); the same call with an
 * agent's permission rules and every call written to the audit log (SQLite, WAL, batched off the call path) against
 * the bare call. Usage: npm run bench:tool-call [-- --json]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AuditBatch,
  AuditStore,
  type CallScope,
  CatalogBuilder,
  type JsonSchemaObject,
  type Message,
  openInstanceDatabase,
  PermissionPolicy,
  type ToolCallMiddleware,
  type ToolCatalog,
  ToolExecutor,
  ToolRegistry,
} from '@goondan/core';
import { type BenchRow, compare, cpuTime, report, side, timeBatch } from './harness.ts';

const message: Message = {
  id: 'msg_bench',
  data: { role: 'assistant', content: [] },
  metadata: {},
  createdAt: new Date(0),
  source: { type: 'assistant' },
};
const baseScope: CallScope = {
  agentName: 'bench',
  instanceKey: 'bench',
  turnId: 'turn',
  message,
  workdir: tmpdir(),
  logger: console,
};
const schema: JsonSchemaObject = { type: 'object', properties: { value: { type: 'integer' } }, required: ['value'] };
const passThrough = (): ToolCallMiddleware =>
  async function passThroughMiddleware(ctx) {
    return ctx.next();
  };

type Handler = (ctx: unknown, args: unknown) => unknown;

/** The original executor's shape: arrays searched by name, the handler awaited, errors turned into results. */
class LinearScanExecutor {
  constructor(
    private readonly tools: { name: string; handler: Handler }[],
    private readonly catalog: string[],
  ) {}

  async execute(call: { id: string; name: string; args: unknown }, ctx: unknown) {
    if (!this.catalog.includes(call.name)) {
      return { toolCallId: call.id, toolName: call.name, status: 'error', error: { code: 'E_TOOL_NOT_IN_CATALOG' } };
    }
    try {
      const tool = this.tools.find((entry) => entry.name === call.name);
      if (!tool) throw new Error(`Tool not found: ${call.name}`);
      const output = await Promise.resolve(tool.handler(ctx, call.args));
      return { toolCallId: call.id, toolName: call.name, status: 'ok', output };
    } catch (error) {
      return { toolCallId: call.id, toolName: call.name, status: 'error', error: { message: String(error) } };
    }
  }
}

function setup(size: number, handler: Handler, permissions?: PermissionPolicy) {
  const registry = new ToolRegistry();
  const names: string[] = [];
  const peerTools: { name: string; handler: Handler }[] = [];
  for (let index = 0; index < size; index += 1) {
    const name = `tool${index}__run`;
    registry.register(
      { name, description: `Tool ${index}`, parameters: schema, source: { type: 'config', name: `tool${index}` } },
      handler,
    );
    names.push(name);
    peerTools.push({ name, handler });
  }
  const builder = new CatalogBuilder(
    registry,
    names.map((name) => name.split('__')[0]!),
  );
  const catalog: ToolCatalog = builder.finalize(builder.initialItems());
  const executor = new ToolExecutor({ registry, middlewares: [passThrough(), passThrough()], permissions });
  // The middle of the catalog: a linear scan walks half of it.
  const call = { id: 'call', name: names[Math.floor(size / 2)]!, args: { value: 1 } };
  return { executor, catalog, call, peer: new LinearScanExecutor(peerTools, names) };
}

async function oursOnce(setupValue: ReturnType<typeof setup>, scope: CallScope) {
  const result = await setupValue.executor.execute(setupValue.call, { catalog: setupValue.catalog, scope });
  if (result.status !== 'ok') throw new Error(`unexpected ${JSON.stringify(result)}`);
}

const batch = 2_000;
const rows: BenchRow[] = [];
const syncMedians = new Map<number, number>();
for (const size of [10, 1_000, 10_000]) {
  const s = setup(size, () => null);
  const peerCtx = { ...baseScope };
  const { ours, peer } = await compare({
    rounds: 40,
    warmup: 15,
    ours: () => timeBatch(batch, () => oursOnce(s, baseScope)),
    peer: () => timeBatch(batch, () => s.peer.execute(s.call, peerCtx)),
  });
  syncMedians.set(size, ours.median);
  rows.push({
    figure: `tool call, ${size.toLocaleString('en-US')} tools, sync handler`,
    unit: 'ns',
    ours: ours.median,
    oursP99: ours.p99,
    peer: peer.median,
    peerP99: peer.p99,
    peerName: 'linear-scan executor',
    goal: size === 10 ? '≤ 1.0× peer' : '≤ 1.2× ours at 10 tools',
    met: size === 10 ? ours.median <= peer.median : ours.median <= 1.2 * syncMedians.get(10)!,
  });
}
{
  const s = setup(10, async () => null);
  const { ours, peer } = await compare({
    rounds: 40,
    warmup: 15,
    ours: () => timeBatch(batch, () => oursOnce(s, baseScope)),
    peer: () => timeBatch(batch, () => s.peer.execute(s.call, baseScope)),
  });
  rows.push({
    figure: 'tool call, 10 tools, async handler',
    unit: 'ns',
    ours: ours.median,
    oursP99: ours.p99,
    peer: peer.median,
    peerP99: peer.p99,
    peerName: 'linear-scan executor',
    goal: '≤ 1.0× peer',
    met: ours.median <= peer.median,
    note: 'ours races the handler against its timeout and the turn signal; the peer has neither',
  });
}
{
  const dir = mkdtempSync(join(tmpdir(), 'gdn-bench-audit-'));
  const db = openInstanceDatabase(join(dir, 'state.db'));
  const audit = new AuditBatch(db, new AuditStore(db));
  const permissions = new PermissionPolicy({ restricted: 'deny', tools: { 'tool1__*': 'ask', tool2__run: 'deny' } });
  const bare = setup(1_000, () => null);
  const audited = setup(1_000, () => null, permissions);
  const auditedScope: CallScope = {
    ...baseScope,
    source: { kind: 'user', name: 'cli' },
    audit: (entry) => audit.append(entry),
  };
  // The call path: the entry is queued; the flush (redaction + insert + commit) runs outside the timed batch.
  const { ours, peer } = await compare({
    rounds: 40,
    warmup: 15,
    ours: async () => {
      const ns = await timeBatch(batch, () => oursOnce(audited, auditedScope));
      audit.flush();
      return ns;
    },
    peer: () => timeBatch(batch, () => oursOnce(bare, baseScope)),
  });
  // What the flush costs per row, as a step pays it: 10 calls' rows redacted and inserted in one commit.
  const flushSamples: number[] = [];
  for (let round = 0; round < 60; round += 1) {
    for (let index = 0; index < 10; index += 1) await oursOnce(audited, auditedScope);
    flushSamples.push((await cpuTime(() => audit.flush())) / 10);
  }
  const flush = side(flushSamples.slice(10));
  db.close();
  rmSync(dir, { recursive: true, force: true });
  rows.push({
    figure: 'call + permissions + audit entry queued (file DB)',
    unit: 'ns',
    ours: ours.median,
    oursP99: ours.p99,
    peer: peer.median,
    peerP99: peer.p99,
    peerName: 'bare call',
    goal: '≤ 2× peer',
    met: ours.median <= 2 * peer.median,
    note: 'the row is written later, with the step (next figure)',
  });
  rows.push({
    figure: 'audit row written at the step commit (redact + insert), per row',
    unit: 'ns',
    ours: flush.median,
    oursP99: flush.p99,
    note: '10 rows per commit; off the call path',
  });
}

report(rows);
