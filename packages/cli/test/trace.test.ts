import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { agentBundle, cleanupTempDirs, gdn, gdnJson, scriptedModel } from './helpers.ts';

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  kind: 'turn' | 'step' | 'model' | 'tool';
  name: string;
  startedAt: number;
  endedAt: number | null;
  status: string;
  attributes: Record<string, unknown>;
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: { key: string; value: Record<string, unknown> }[];
  status: { code: number; message?: string };
}

let bundle: string;
let traceIds: string[];

beforeAll(async () => {
  bundle = await agentBundle(
    scriptedModel([
      {
        text: 'Trying two tools.',
        toolCalls: [
          { name: 'calc__add', args: { a: 1, b: 2 } },
          { name: 'calc__boom', args: { reason: 'for the trace' } },
        ],
      },
      { text: 'Done.' },
    ]),
  );
  traceIds = [];
  for (const input of ['first turn', 'second turn']) {
    const { result, json } = await gdnJson(['run', '--bundle', bundle, '--input', input, '--json']);
    expect(result.exitCode).toBe(0);
    traceIds.push(json.traceId as string);
  }
});
afterAll(cleanupTempDirs);

describe('gdn trace', () => {
  test('prints each turn as a tree of steps, model calls and tool calls with statuses and error codes', async () => {
    const result = await gdn(['trace', '--bundle', bundle]);
    expect(result.exitCode).toBe(0);
    const blocks = result.stdout.trim().split('\n\n');
    expect(blocks).toHaveLength(2);
    // Oldest first, newest last.
    expect(blocks[0]!.split('\n')[0]).toMatch(new RegExp(`^trace ${traceIds[0]}  \\d{4}-\\d\\d-\\d\\dT`));
    expect(blocks[1]!.split('\n')[0]).toStartWith(`trace ${traceIds[1]}  `);
    const shape = blocks[1]!
      .split('\n')
      .slice(1)
      .map((line) => line.replace(/ {2}\d+ms/, '  <ms>').replace(/tokens \d+→\d+/, 'tokens <n>'));
    expect(shape).toEqual([
      '└─ turn helper  ok  <ms>  tokens <n>',
      '   ├─ step 0  ok  <ms>',
      '   │  ├─ model scripted:fixture  ok  <ms>  tokens <n>',
      '   │  ├─ tool calc__add  ok  <ms>',
      '   │  └─ tool calc__boom  error  <ms>  E_TOOL  kaboom: for the trace',
      '   └─ step 1  ok  <ms>',
      '      └─ model scripted:fixture  ok  <ms>  tokens <n>',
    ]);
  });

  test('--limit picks the newest traces', async () => {
    const result = await gdn(['trace', '--bundle', bundle, '--limit', '1']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toStartWith(`trace ${traceIds[1]}  `);
    expect(result.stdout).not.toContain(traceIds[0]!);

    const bad = await gdn(['trace', '--bundle', bundle, '--limit', 'zero']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--limit must be a positive integer');
  });

  test('--json gives spans linked by traceId, spanId and parentSpanId', async () => {
    const { result, json } = await gdnJson<{
      agent: string;
      instance: string;
      traces: { traceId: string; spans: Span[] }[];
    }>(['trace', '--bundle', bundle, '--json']);
    expect(result.exitCode).toBe(0);
    expect(json.agent).toBe('helper');
    expect(json.instance).toBe('default');
    expect(json.traces.map((trace) => trace.traceId)).toEqual(traceIds);
    for (const trace of json.traces) {
      const spans = trace.spans;
      expect(spans).toHaveLength(1 + 2 + 2 + 2);
      for (const span of spans) {
        expect(span.traceId).toBe(trace.traceId);
        expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
        expect(span.endedAt).not.toBeNull();
      }
      expect(new Set(spans.map((span) => span.spanId)).size).toBe(spans.length);
      const byId = new Map(spans.map((span) => [span.spanId, span]));
      const parentKind = (span: Span) => (span.parentSpanId === null ? null : byId.get(span.parentSpanId)?.kind);
      const turn = spans.filter((span) => span.kind === 'turn');
      expect(turn).toHaveLength(1);
      expect(turn[0]!.parentSpanId).toBeNull();
      expect(turn[0]!.attributes).toMatchObject({ agent: 'helper', status: 'completed', steps: 2 });
      for (const span of spans.filter((s) => s.kind === 'step')) expect(parentKind(span)).toBe('turn');
      for (const span of spans.filter((s) => s.kind === 'model' || s.kind === 'tool'))
        expect(parentKind(span)).toBe('step');
      const tools = spans.filter((span) => span.kind === 'tool');
      expect(tools.map((span) => [span.name, span.status, span.attributes.errorCode ?? null])).toEqual([
        ['tool calc__add', 'ok', null],
        ['tool calc__boom', 'error', 'E_TOOL'],
      ]);
      // Both tool calls hang under the first step, whose model call made them.
      expect(tools[0]!.parentSpanId).toBe(tools[1]!.parentSpanId);
      expect(byId.get(tools[0]!.parentSpanId!)!.name).toBe('step 0');
    }
  });

  test('--otlp gives OTLP/JSON resourceSpans with 32-hex traceIds and 16-hex spanIds', async () => {
    const { result, json } = await gdnJson<{
      resourceSpans: {
        resource: { attributes: { key: string; value: { stringValue?: string } }[] };
        scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[];
      }[];
    }>(['trace', '--bundle', bundle, '--otlp']);
    expect(result.exitCode).toBe(0);
    expect(json.resourceSpans).toHaveLength(1);
    const [resource] = json.resourceSpans;
    // The live export's resource: service.name (OTEL_SERVICE_NAME, default goondan), the agent and the instance.
    expect(resource!.resource.attributes).toEqual([
      { key: 'service.name', value: { stringValue: 'goondan' } },
      { key: 'goondan.agent', value: { stringValue: 'helper' } },
      { key: 'goondan.instance', value: { stringValue: 'default' } },
    ]);
    const spans = resource!.scopeSpans.flatMap((scope) => scope.spans);
    expect(spans).toHaveLength(14);
    expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set(traceIds));
    for (const span of spans) {
      expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
      if (span.parentSpanId !== undefined) expect(span.parentSpanId).toMatch(/^[0-9a-f]{16}$/);
      expect(span.startTimeUnixNano).toMatch(/^\d{19}$/);
      expect(BigInt(span.endTimeUnixNano) >= BigInt(span.startTimeUnixNano)).toBe(true);
    }
    // Names follow the OpenTelemetry GenAI conventions (docs/telemetry.md), as the live export's do.
    expect(spans.filter((span) => span.parentSpanId === undefined).map((span) => span.name)).toEqual([
      'invoke_agent helper',
      'invoke_agent helper',
    ]);
    // Model calls are CLIENT spans; the failed tool call is an ERROR status that says why.
    const models = spans.filter((span) => span.kind === 3);
    expect(models.length).toBeGreaterThan(0);
    expect(models.every((span) => span.name.startsWith('chat '))).toBe(true);
    const failed = spans.filter((span) => span.name === 'execute_tool calc__boom');
    expect(failed).toHaveLength(2);
    for (const span of failed) expect(span.status).toEqual({ code: 2, message: 'kaboom: for the trace' });
    expect(spans.find((span) => span.name === 'execute_tool calc__add')!.status).toEqual({ code: 1 });
  });

  test('an instance with no turns yet says so', async () => {
    const result = await gdn(['trace', '--bundle', bundle, '--instance', 'untouched']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout.trim()).toBe("No traces yet for helper/untouched. Run a turn with 'gdn run' or 'gdn chat'.");
    const { json } = await gdnJson(['trace', '--bundle', bundle, '--instance', 'untouched', '--otlp']);
    expect(json).toMatchObject({ resourceSpans: [{ scopeSpans: [{ spans: [] }] }] });
  });
});
