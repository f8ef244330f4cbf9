import { afterEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { forgetSecretValues, rememberSecretValue } from '../permissions/secret-registry.ts';
import { openInstanceDatabase } from './open-instance-database.ts';
import { createTempDirs } from './test-support.ts';
import { newSpanId, newTraceId } from './trace-ids.ts';
import { type SpanRecord, TraceStore } from './trace-store.ts';

const temp = createTempDirs();
afterEach(() => temp.cleanup());

function freshTraces(): TraceStore {
  return new TraceStore(openInstanceDatabase(join(temp.make(), 'instance.db')));
}

function span(overrides: Partial<SpanRecord> & Pick<SpanRecord, 'traceId' | 'startedAt'>): SpanRecord {
  return {
    spanId: newSpanId(),
    parentSpanId: null,
    kind: 'turn',
    name: 'turn',
    endedAt: null,
    status: 'running',
    attributes: {},
    ...overrides,
  };
}

describe('trace ids', () => {
  test('trace ids are 32 and span ids 16 lowercase hex characters, and differ', () => {
    const traceIds = new Set(Array.from({ length: 100 }, newTraceId));
    const spanIds = new Set(Array.from({ length: 100 }, newSpanId));
    expect(traceIds.size).toBe(100);
    expect(spanIds.size).toBe(100);
    for (const id of traceIds) expect(id).toMatch(/^[0-9a-f]{32}$/);
    for (const id of spanIds) expect(id).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('TraceStore', () => {
  test("closeInterrupted: spans a dead process left running end cancelled at their trace's last moment; kept traces and ended spans stay", () => {
    const traces = freshTraces();
    const dead = newTraceId();
    const resumed = newTraceId();
    const turn = span({ traceId: dead, startedAt: 1000, attributes: { agent: 'a' } });
    const done = span({ traceId: dead, parentSpanId: turn.spanId, kind: 'step', name: 'step 0', startedAt: 1100 });
    const tool = span({ traceId: dead, parentSpanId: turn.spanId, kind: 'tool', name: 'tool x', startedAt: 1300 });
    const waiting = span({ traceId: resumed, startedAt: 2000 });
    traces.recordSpans([turn, { ...done, endedAt: 1250, status: 'ok' }, tool, waiting]);

    expect(traces.closeInterrupted([resumed])).toBe(2);
    const byId = new Map(traces.spansOfTrace(dead).map((stored) => [stored.spanId, stored]));
    expect(byId.get(turn.spanId)).toMatchObject({
      status: 'cancelled',
      endedAt: 1300,
      attributes: { agent: 'a', interrupted: true },
    });
    expect(byId.get(tool.spanId)).toMatchObject({
      status: 'cancelled',
      endedAt: 1300,
      attributes: { interrupted: true },
    });
    expect(byId.get(done.spanId)).toMatchObject({ status: 'ok', endedAt: 1250, attributes: {} });
    expect(traces.spansOfTrace(resumed)[0]).toMatchObject({ status: 'running', endedAt: null });
    expect(traces.closeInterrupted([resumed])).toBe(0);
    expect(traces.closeInterrupted()).toBe(1);
  });

  test('a span written as running is replaced by its final write', () => {
    const traces = freshTraces();
    const traceId = newTraceId();
    const running = span({ traceId, startedAt: 1000, attributes: { agent: 'assistant' } });
    traces.recordSpan(running);
    expect(traces.spansOfTrace(traceId)).toEqual([running]);
    const done: SpanRecord = {
      ...running,
      endedAt: 1250.5,
      status: 'ok',
      attributes: { agent: 'assistant', usage: { inputTokens: 12, outputTokens: 4 } },
    };
    traces.recordSpan(done);
    expect(traces.spansOfTrace(traceId)).toEqual([done]);
  });

  test('spansOfTrace orders by start time', () => {
    const traces = freshTraces();
    const traceId = newTraceId();
    const root = span({ traceId, startedAt: 100 });
    const late = span({ traceId, startedAt: 300, parentSpanId: root.spanId, kind: 'tool', name: 'bash__run' });
    const early = span({ traceId, startedAt: 200, parentSpanId: root.spanId, kind: 'step', name: 'step 1' });
    for (const s of [late, root, early]) traces.recordSpan(s);
    traces.recordSpan(span({ traceId: newTraceId(), startedAt: 150 }));
    expect(traces.spansOfTrace(traceId).map((s) => s.spanId)).toEqual([root.spanId, early.spanId, late.spanId]);
  });

  test('recentTraces returns the last N traces by root start, newest first, with their spans', () => {
    const traces = freshTraces();
    const ids: string[] = [newTraceId(), newTraceId(), newTraceId()];
    const starts = [5000, 1000, 3000];
    ids.forEach((traceId, index) => {
      const root = span({ traceId, startedAt: starts[index]! });
      traces.recordSpan(root);
      traces.recordSpan(span({ traceId, startedAt: starts[index]! + 10, parentSpanId: root.spanId, kind: 'step' }));
    });
    const recent = traces.recentTraces(2);
    expect(recent.map((trace) => trace.traceId)).toEqual([ids[0]!, ids[2]!]);
    expect(recent.map((trace) => trace.startedAt)).toEqual([5000, 3000]);
    expect(recent[0]!.spans).toHaveLength(2);
    expect(recent[0]!.spans[0]!.parentSpanId).toBeNull();
    expect(traces.recentTraces(0)).toEqual([]);
  });

  test('a span whose stored attributes are damaged is read with a marker; the others are untouched', () => {
    const db = openInstanceDatabase(join(temp.make(), 'instance.db'));
    const traces = new TraceStore(db);
    const traceId = newTraceId();
    const good = span({ traceId, startedAt: 1, attributes: { agent: 'a' } });
    const bad = span({ traceId, startedAt: 2, name: 'tool x' });
    const odd = span({ traceId, startedAt: 3, name: 'tool y' });
    traces.recordSpans([good, bad, odd]);
    db.run("UPDATE trace_spans SET attributes = '{not json' WHERE span_id = ?", [bad.spanId]);
    db.run("UPDATE trace_spans SET attributes = 'null' WHERE span_id = ?", [odd.spanId]);
    const [trace] = traces.recentTraces(1);
    expect(trace!.spans.map((stored) => stored.attributes)).toEqual([
      { agent: 'a' },
      { unreadableAttributes: true },
      { unreadableAttributes: true },
    ]);
  });

  test('pruneTraces keeps only the newest traces', () => {
    const traces = freshTraces();
    const ids: string[] = [newTraceId(), newTraceId(), newTraceId()];
    ids.forEach((traceId, index) => {
      traces.recordSpan(span({ traceId, startedAt: index * 100 }));
      traces.recordSpan(span({ traceId, startedAt: index * 100 + 1, kind: 'step' }));
    });
    expect(traces.pruneTraces(1)).toBe(4);
    expect(traces.recentTraces(10).map((trace) => trace.traceId)).toEqual([ids[2]!]);
  });

  test('pruning far more spans than it keeps (the copy-aside path) keeps exactly the newest traces, in order', () => {
    const traces = freshTraces();
    // 12,000 old spans go, 3 traces of 4 stay; spans of a trace share a start time, so their order is their rowid.
    const old: SpanRecord[] = [];
    for (let index = 0; index < 3000; index++) {
      const traceId = newTraceId();
      for (let k = 0; k < 4; k++) old.push(span({ traceId, startedAt: index, kind: k === 0 ? 'turn' : 'tool' }));
    }
    traces.recordSpans(old);
    const kept = [newTraceId(), newTraceId(), newTraceId()];
    kept.forEach((traceId, index) => {
      for (let k = 0; k < 4; k++) traces.recordSpan(span({ traceId, startedAt: 10_000 + index, name: `span ${k}` }));
    });
    const before = kept.map((traceId) => traces.spansOfTrace(traceId));
    const newest = traces.recentTraces(3);

    expect(traces.pruneTraces(3)).toBe(12_000);
    expect(traces.recentTraces(10)).toEqual(newest);
    expect(kept.map((traceId) => traces.spansOfTrace(traceId))).toEqual(before);
    expect(before[0]!.map((kept) => kept.name)).toEqual(['span 0', 'span 1', 'span 2', 'span 3']);
    // A span written again after the prune still replaces its stored self (the span_id key came back with it).
    traces.recordSpan({ ...before[0]![1]!, status: 'error' });
    expect(traces.spansOfTrace(kept[0]!).map((kept) => kept.status)).toEqual([
      'running',
      'error',
      'running',
      'running',
    ]);
    expect(traces.pruneTraces(3)).toBe(0);
  });
});

describe('TraceStore and secrets', () => {
  test('spans are stored with known secret values, credentials and secret-named attributes redacted', () => {
    rememberSecretValue('Zq8vXw3kLm9pRt2y');
    try {
      const traces = freshTraces();
      const traceId = newTraceId();
      traces.recordSpan(
        span({
          traceId,
          startedAt: 1,
          name: 'tool fetch Zq8vXw3kLm9pRt2y',
          attributes: {
            errorMessage: 'Incorrect API key provided: Zq8vXw3kLm9pRt2y.',
            request: 'Authorization: Bearer abcd1234efgh5678',
            apiKey: 'k-plain',
            inputTokens: 12,
          },
        }),
      );
      const [stored] = traces.spansOfTrace(traceId);
      expect(stored!.name).toBe('tool fetch [REDACTED]');
      expect(stored!.attributes).toEqual({
        errorMessage: 'Incorrect API key provided: [REDACTED].',
        request: 'Authorization: [REDACTED]',
        apiKey: '[REDACTED]',
        inputTokens: 12,
      });
    } finally {
      forgetSecretValues();
    }
  });

  test('the values of secret environment variables it is given are redacted from names and attributes', () => {
    const traces = new TraceStore(openInstanceDatabase(join(temp.make(), 'instance.db')), {
      secretValues: ['plainvalue-xyz-123456'],
    });
    const traceId = newTraceId();
    traces.recordSpan(
      span({
        traceId,
        startedAt: 1,
        name: 'tool call plainvalue-xyz-123456',
        attributes: { errorMessage: 'upstream said no to plainvalue-xyz-123456', nested: ['x plainvalue-xyz-123456'] },
      }),
    );
    const [stored] = traces.spansOfTrace(traceId);
    expect(JSON.stringify(stored)).not.toContain('plainvalue-xyz-123456');
    expect(stored!.attributes.errorMessage).toBe('upstream said no to [REDACTED]');
  });
});
