/**
 * Tool-call pipeline overhead (DESIGN.md §4): guard + validation + 2 pass-through middlewares + result, with a
 * no-op handler, for catalogs of 10, 1,000 and 10,000 tools; then the same call with an agent's permission rules
 * and every call written to the audit log (SQLite in WAL mode, secrets redacted), as an agent instance runs it.
 * `-- --json` prints one JSON object.
 * Usage: npm run bench:tool-call [-- --json]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AuditStore,
  type CallScope,
  CatalogBuilder,
  type Message,
  openInstanceDatabase,
  PermissionPolicy,
  redactSecrets,
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
const baseScope: CallScope = {
  agentName: 'bench',
  instanceKey: 'bench',
  turnId: 'turn',
  message,
  workdir: tmpdir(),
  logger: console,
};
const passThrough = (): ToolCallMiddleware =>
  async function passThroughMiddleware(ctx) {
    return ctx.next();
  };

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function measure(size: number, audited = false) {
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
  const permissions = audited
    ? new PermissionPolicy({ restricted: 'deny', tools: { 'tool1__*': 'ask', tool2__run: 'deny' } })
    : undefined;
  const executor = new ToolExecutor({ registry, middlewares: [passThrough(), passThrough()], permissions });
  const target = names[Math.floor(size / 2)]!;
  const call = { id: 'call', name: target, args: { value: 1 } };
  const dir = audited ? mkdtempSync(join(tmpdir(), 'gdn-bench-audit-')) : null;
  const db = dir ? openInstanceDatabase(join(dir, 'state.db')) : null;
  const store = db ? new AuditStore(db) : null;
  const scope: CallScope = store
    ? { ...baseScope, source: { kind: 'user', name: 'cli' }, audit: (entry) => store.append(entry) }
    : baseScope;
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
  db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  const nsPerCall = median(samples);
  return { tools: size, nsPerCall: Math.round(nsPerCall), callsPerSecond: Math.round(1e9 / nsPerCall) };
}

const results = [];
for (const size of sizes) results.push(await measure(size));
const audited = await measure(1_000, true);
const redactStart = Bun.nanoseconds();
for (let index = 0; index < 10_000; index += 1)
  redactSecrets({ command: 'curl -H "Authorization: Bearer abc123def456"' });
const redactNs = Math.round((Bun.nanoseconds() - redactStart) / 10_000);
if (json) {
  console.log(JSON.stringify({ results, audited, redactNs }));
} else {
  console.log('tool-call pipeline overhead (guard + validation + 2 middlewares + no-op handler)');
  for (const row of results) {
    console.log(
      `  ${String(row.tools).padStart(6)} tools  ${String(row.nsPerCall).padStart(6)} ns/call (median)  ${row.callsPerSecond.toLocaleString('en-US')} calls/s`,
    );
  }
  console.log('  budget: ≤ 2,000 ns/call median, flat across catalog sizes (DESIGN.md §4)');
  console.log('with permission rules and the audit log (one SQLite row per call, WAL, secrets redacted)');
  console.log(
    `    1000 tools  ${String(audited.nsPerCall).padStart(6)} ns/call (median)  ${audited.callsPerSecond.toLocaleString('en-US')} calls/s  (${(audited.nsPerCall / results[1]!.nsPerCall).toFixed(1)}× the bare pipeline)`,
  );
  console.log(`  redacting one small argument object: ${redactNs} ns`);
}
