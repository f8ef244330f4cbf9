import { describe, expect, test } from 'bun:test';
import { toOtlpJson } from './to-otlp-json.ts';
import { newSpanId, newTraceId } from './trace-ids.ts';
import type { SpanRecord, TraceRecord } from './trace-store.ts';

const traceId = newTraceId();
const root: SpanRecord = {
  traceId,
  spanId: newSpanId(),
  parentSpanId: null,
  kind: 'turn',
  name: 'turn',
  startedAt: 1_770_000_000_000,
  endedAt: 1_770_000_000_500.25,
  status: 'ok',
  attributes: { agent: 'assistant', instance: 'default', steps: 2, cost: 0.25, ok: true, none: null },
};
const model: SpanRecord = {
  ...root,
  spanId: newSpanId(),
  parentSpanId: root.spanId,
  kind: 'model',
  name: 'model openai.chat:gpt',
  startedAt: 1_770_000_000_010,
  endedAt: 1_770_000_000_400,
  attributes: { usage: { inputTokens: 12, outputTokens: 4 }, finish: ['stop'] },
};
const failed: SpanRecord = {
  ...root,
  spanId: newSpanId(),
  parentSpanId: root.spanId,
  kind: 'tool',
  name: 'bash__run',
  startedAt: 1_770_000_000_410,
  endedAt: null,
  status: 'error',
  attributes: { 'error.code': 'E_TOOL_TIMEOUT', 'error.message': 'took too long' },
};
const trace: TraceRecord = { traceId, startedAt: root.startedAt, spans: [root, model, failed] };

describe('toOtlpJson', () => {
  const exported = toOtlpJson([trace], { resourceAttributes: { 'goondan.instance': 'default' } });
  const spans = exported.resourceSpans[0]!.scopeSpans[0]!.spans;

  test('has the resourceSpans → scopeSpans → spans shape with a service name', () => {
    expect(exported.resourceSpans).toHaveLength(1);
    expect(exported.resourceSpans[0]!.resource.attributes).toEqual([
      { key: 'service.name', value: { stringValue: 'goondan' } },
      { key: 'goondan.instance', value: { stringValue: 'default' } },
    ]);
    expect(spans).toHaveLength(3);
  });

  test('ids are hex of 32 and 16 characters, parents linked, root without parent', () => {
    for (const s of spans) {
      expect(s.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(s.spanId).toMatch(/^[0-9a-f]{16}$/);
    }
    expect(spans[0]!.parentSpanId).toBeUndefined();
    expect(spans[1]!.parentSpanId).toBe(root.spanId);
  });

  test('times are unix nanoseconds as decimal strings', () => {
    expect(spans[0]!.startTimeUnixNano).toBe('1770000000000000000');
    expect(spans[0]!.endTimeUnixNano).toBe('1770000000500250000');
    expect(spans[2]!.endTimeUnixNano).toBe(spans[2]!.startTimeUnixNano);
  });

  test('attributes become OTLP key/value lists, with our kind and status alongside', () => {
    expect(spans[0]!.attributes).toEqual([
      { key: 'gen_ai.operation.name', value: { stringValue: 'invoke_agent' } },
      { key: 'gen_ai.agent.name', value: { stringValue: 'assistant' } },
      { key: 'gen_ai.conversation.id', value: { stringValue: 'assistant/default' } },
      { key: 'goondan.agent', value: { stringValue: 'assistant' } },
      { key: 'goondan.instance', value: { stringValue: 'default' } },
      { key: 'goondan.steps', value: { intValue: '2' } },
      { key: 'goondan.cost', value: { doubleValue: 0.25 } },
      { key: 'goondan.ok', value: { boolValue: true } },
      { key: 'goondan.none', value: {} },
      { key: 'goondan.span.kind', value: { stringValue: 'turn' } },
      { key: 'goondan.span.status', value: { stringValue: 'ok' } },
    ]);
    const modelAttributes = spans[1]!.attributes.filter((a) => !a.key.startsWith('gen_ai.'));
    expect(modelAttributes.slice(0, 2)).toEqual([
      {
        key: 'goondan.usage',
        value: {
          kvlistValue: {
            values: [
              { key: 'inputTokens', value: { intValue: '12' } },
              { key: 'outputTokens', value: { intValue: '4' } },
            ],
          },
        },
      },
      { key: 'goondan.finish', value: { arrayValue: { values: [{ stringValue: 'stop' }] } } },
    ]);
  });

  test('names follow the GenAI conventions: invoke_agent, chat, execute_tool', () => {
    expect(spans.map((s) => s.name)).toEqual(['invoke_agent assistant', 'chat gpt', 'execute_tool bash__run']);
    const model = Object.fromEntries(spans[1]!.attributes.map((a) => [a.key, a.value]));
    expect(model['gen_ai.operation.name']).toEqual({ stringValue: 'chat' });
    expect(model['gen_ai.provider.name']).toEqual({ stringValue: 'openai' });
    expect(model['gen_ai.request.model']).toEqual({ stringValue: 'gpt' });
    const tool = Object.fromEntries(spans[2]!.attributes.map((a) => [a.key, a.value]));
    expect(tool['gen_ai.tool.name']).toEqual({ stringValue: 'bash__run' });
    expect(tool['error.type']).toEqual({ stringValue: 'E_TOOL_TIMEOUT' });
  });

  test('status and kind map to OTLP codes', () => {
    expect(spans.map((s) => s.status.code)).toEqual([1, 1, 2]);
    expect(spans[2]!.status.message).toBe('took too long');
    expect(spans.map((s) => s.kind)).toEqual([1, 3, 1]);
  });

  test('survives JSON serialisation unchanged', () => {
    expect(JSON.parse(JSON.stringify(exported))).toEqual(exported);
  });
});
