/**
 * Tool-call pipeline cost (DESIGN.md §4): catalog guard + permissions + Ajv validation + 2 pass-through toolCall
 * middlewares + handler + result, for catalogs of 10, 1,000 and 10,000 tools, against a peer written here in the
 * shape of the original Goondan executor: the catalog an array of items searched by name (a linear scan), the
 * arguments checked against the item's parameters by walking the schema (required keys, unknown keys when
 * additionalProperties is false, each property's type and enum, nested objects and arrays), the handler taken from
 * the registry (a Map) and awaited, the result wrapped in an object, a throw turned into an error result. The peer does less: no
 * permissions, no middleware, no timeout, no per-call context (one shared object), no output JSON-safety or size
 * cap, and its schema walk knows fewer keywords than Ajv. A second peer row, the same scan without the argument
 * check, is the floor of any executor that looks a tool up by name and awaits it.
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
type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean;
  items?: Schema;
  enum?: unknown[];
};
type PeerTool = { name: string; parameters: Schema; handler: Handler };

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** The original executor's argument check: a walk of the schema collecting every problem as path + message. */
function schemaProblems(value: unknown, schema: Schema, path: string, problems: string[]): void {
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  const actual = typeOf(value);
  if (types.length > 0 && !types.some((type) => type === actual || (type === 'number' && actual === 'integer'))) {
    problems.push(`${path}: expected ${types.join('|')} but got ${actual}`);
    return;
  }
  if (schema.enum && !schema.enum.some((candidate) => JSON.stringify(candidate) === JSON.stringify(value))) {
    problems.push(`${path}: not one of the allowed values`);
    return;
  }
  if (actual === 'object') {
    const object = value as Record<string, unknown>;
    for (const key of schema.required ?? []) {
      if (!Object.hasOwn(object, key)) problems.push(`${path}.${key}: required property is missing`);
    }
    const properties = schema.properties ?? {};
    if (schema.additionalProperties === false) {
      for (const key of Object.keys(object)) {
        if (!Object.hasOwn(properties, key)) problems.push(`${path}.${key}: unexpected property`);
      }
    }
    for (const [key, child] of Object.entries(properties)) {
      if (object[key] !== undefined) schemaProblems(object[key], child, `${path}.${key}`, problems);
    }
  }
  if (actual === 'array' && schema.items) {
    (value as unknown[]).forEach((item, index) => {
      schemaProblems(item, schema.items!, `${path}[${index}]`, problems);
    });
  }
}

/**
 * The original executor's shape: the catalog an array searched by name, the arguments checked, the handler taken
 * from the registry (a Map) and awaited.
 */
class LinearScanExecutor {
  private readonly handlers: Map<string, Handler>;

  constructor(
    tools: PeerTool[],
    private readonly catalog: PeerTool[],
    private readonly checkArguments: boolean,
  ) {
    this.handlers = new Map(tools.map((tool) => [tool.name, tool.handler]));
  }

  async execute(call: { id: string; name: string; args: unknown }, ctx: unknown) {
    const item = this.catalog.find((entry) => entry.name === call.name);
    if (!item) {
      return { toolCallId: call.id, toolName: call.name, status: 'error', error: { code: 'E_TOOL_NOT_IN_CATALOG' } };
    }
    if (this.checkArguments) {
      const problems: string[] = [];
      schemaProblems(call.args, item.parameters, 'args', problems);
      if (problems.length > 0) {
        const message = `Invalid arguments for tool '${call.name}': ${problems.slice(0, 5).join('; ')}`;
        return {
          toolCallId: call.id,
          toolName: call.name,
          status: 'error',
          error: { code: 'E_TOOL_INVALID_ARGS', message },
        };
      }
    }
    try {
      const handler = this.handlers.get(call.name);
      if (!handler) throw new Error(`Tool not found: ${call.name}`);
      const output = await handler(ctx, call.args);
      return { toolCallId: call.id, toolName: call.name, status: 'ok', output };
    } catch (error) {
      return { toolCallId: call.id, toolName: call.name, status: 'error', error: { message: String(error) } };
    }
  }
}

function setup(size: number, handler: Handler, permissions?: PermissionPolicy) {
  const registry = new ToolRegistry();
  const names: string[] = [];
  const peerTools: PeerTool[] = [];
  for (let index = 0; index < size; index += 1) {
    const name = `tool${index}__run`;
    registry.register(
      { name, description: `Tool ${index}`, parameters: schema, source: { type: 'config', name: `tool${index}` } },
      handler,
    );
    names.push(name);
    peerTools.push({ name, parameters: schema as Schema, handler });
  }
  const builder = new CatalogBuilder(
    registry,
    names.map((name) => name.split('__')[0]!),
  );
  const catalog: ToolCatalog = builder.finalize(builder.initialItems());
  const executor = new ToolExecutor({ registry, middlewares: [passThrough(), passThrough()], permissions });
  // The middle of the catalog: a linear scan walks half of it.
  const call = { id: 'call', name: names[Math.floor(size / 2)]!, args: { value: 1 } };
  return {
    executor,
    catalog,
    call,
    peer: new LinearScanExecutor(peerTools, [...peerTools], true),
    barePeer: new LinearScanExecutor(peerTools, [...peerTools], false),
  };
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
  if (size === 10) {
    const bare = await compare({
      rounds: 40,
      warmup: 15,
      ours: () => timeBatch(batch, () => oursOnce(s, baseScope)),
      peer: () => timeBatch(batch, () => s.barePeer.execute(s.call, peerCtx)),
    });
    rows.push({
      figure: 'tool call, 10 tools, sync handler, against a bare scan',
      unit: 'ns',
      ours: bare.ours.median,
      oursP99: bare.ours.p99,
      peer: bare.peer.median,
      peerP99: bare.peer.p99,
      peerName: 'scan + await, no argument check',
      note: 'the floor of any executor that finds a tool by name and awaits it; no goal',
    });
  }
  rows.push({
    figure: `tool call, ${size.toLocaleString('en-US')} tools, sync handler`,
    unit: 'ns',
    ours: ours.median,
    oursP99: ours.p99,
    peer: peer.median,
    peerP99: peer.p99,
    peerName: 'original executor (scan + its argument check)',
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
    peerName: 'original executor (scan + its argument check)',
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
