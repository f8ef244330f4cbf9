import { describe, expect, test } from 'bun:test';
import { buildSpanTree, type SpanNode } from './build-span-tree.ts';
import type { SpanRecord } from './trace-store.ts';

function span(spanId: string, parentSpanId: string | null, startedAt: number): SpanRecord {
  return {
    traceId: 't'.repeat(32),
    spanId,
    parentSpanId,
    kind: 'step',
    name: spanId,
    startedAt,
    endedAt: null,
    status: 'ok',
    attributes: {},
  };
}

function shape(nodes: SpanNode[]): unknown[] {
  return nodes.map((node) =>
    node.children.length === 0 ? node.span.spanId : { [node.span.spanId]: shape(node.children) },
  );
}

describe('buildSpanTree', () => {
  test('nests children under parents, siblings by start time', () => {
    const spans = [
      span('tool-b', 'step-1', 30),
      span('turn', null, 0),
      span('step-2', 'turn', 50),
      span('step-1', 'turn', 10),
      span('tool-a', 'step-1', 20),
      span('model', 'step-2', 55),
    ];
    expect(shape(buildSpanTree(spans))).toEqual([
      { turn: [{ 'step-1': ['tool-a', 'tool-b'] }, { 'step-2': ['model'] }] },
    ]);
  });

  test('a span whose parent is elsewhere (another agent) becomes a root', () => {
    expect(shape(buildSpanTree([span('remote-child', 'in-other-agent', 5), span('local', null, 1)]))).toEqual([
      'local',
      'remote-child',
    ]);
  });

  test('a model or tool span whose step was not written (killed, or still running) goes under its turn', () => {
    const turn = (spanId: string, parentSpanId: string | null, startedAt: number) => ({
      ...span(spanId, parentSpanId, startedAt),
      kind: 'turn' as const,
    });
    const model = (spanId: string, parentSpanId: string, startedAt: number) => ({
      ...span(spanId, parentSpanId, startedAt),
      kind: 'model' as const,
    });
    const spans = [
      turn('turn-1', null, 0),
      span('step-1', 'turn-1', 1),
      model('model-1', 'step-1', 2),
      turn('turn-2', null, 10),
      model('model-2', 'step-unwritten', 12),
      // Another agent's turn, asked by this one: its parent is in the other agent's store; it stays a root.
      turn('remote-turn', 'in-other-agent', 20),
      // A span of another trace is not put under this trace's turn.
      { ...model('elsewhere', 'gone', 13), traceId: 'u'.repeat(32) },
    ];
    expect(shape(buildSpanTree(spans))).toEqual([
      { 'turn-1': [{ 'step-1': ['model-1'] }] },
      { 'turn-2': ['model-2'] },
      'elsewhere',
      'remote-turn',
    ]);
  });

  test('breaks parent cycles instead of looping', () => {
    const roots = buildSpanTree([span('a', 'b', 1), span('b', 'a', 2), span('self', 'self', 3)]);
    expect(shape(roots)).toEqual([{ a: ['b'] }, 'self']);
  });

  test('an empty list gives no roots', () => {
    expect(buildSpanTree([])).toEqual([]);
  });
});
