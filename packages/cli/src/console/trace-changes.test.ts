import { afterAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { instancePaths, newSpanId, newTraceId, openInstanceDatabase, type SpanRecord, TraceStore } from '@goondan/core';
import { type TraceChange, TraceChanges } from './trace-changes.ts';

const rootDir = mkdtempSync(join(tmpdir(), 'gdn-trace-changes-'));
afterAll(() => rmSync(rootDir, { recursive: true, force: true }));

function store(instanceKey: string, span: SpanRecord): void {
  const db = openInstanceDatabase(instancePaths({ rootDir, agentName: 'helper', instanceKey }).databaseFile);
  try {
    new TraceStore(db).recordSpans([span]);
  } finally {
    db.close();
  }
}

const span = (traceId: string, name: string): SpanRecord => ({
  traceId,
  spanId: newSpanId(),
  parentSpanId: null,
  kind: 'turn',
  name,
  startedAt: Date.now(),
  endedAt: null,
  status: 'running',
  attributes: {},
});

test('tells every view of a trace its version at once, then each change of that trace and nothing else', async () => {
  const traceId = newTraceId();
  store('watched', span(traceId, 'turn'));
  store('other', span(newTraceId(), 'another turn'));
  const changes = new TraceChanges(() => rootDir);
  const heard: TraceChange[][] = [[], []];
  const next = heard.map(() => Promise.withResolvers<void>());
  const unsubscribe = heard.map((list, index) =>
    changes.subscribe(traceId, (change) => {
      if (change.type !== 'change') return;
      list.push(change);
      if (list.length === 2) next[index]!.resolve();
    }),
  );
  try {
    expect(heard.map((list) => list.length)).toEqual([1, 1]);
    expect(heard[0]![0]).toEqual(heard[1]![0]!);
    // Another instance's trace grows first, then the watched one: only the latter is a change.
    store('other', span(newTraceId(), 'one more'));
    store('watched', { ...span(traceId, 'step'), kind: 'step' });
    await Promise.all(next.map((resolvers) => resolvers.promise));
    expect(heard.map((list) => list.length)).toEqual([2, 2]);
    expect(heard[0]![1]).not.toEqual(heard[0]![0]!);
  } finally {
    for (const stop of unsubscribe) stop();
  }
});
