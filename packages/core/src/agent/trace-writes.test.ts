import { describe, expect, test } from 'bun:test';
import { ConversationStore } from '../store/conversation-store.ts';
import { openInstanceDatabase } from '../store/open-instance-database.ts';
import { type SpanRecord, TraceStore } from '../store/trace-store.ts';
import { MAX_STORED_TRACES, TraceWrites } from './trace-writes.ts';

function setup(options: { quietMs?: number; maxDelayMs?: number } = {}) {
  const db = openInstanceDatabase(':memory:');
  const traces = new TraceStore(db);
  const conversation = new ConversationStore(db);
  const warnings: string[] = [];
  let commits = 0;
  const writes = new TraceWrites({
    traces,
    conversation,
    commit: (write) => {
      commits += 1;
      conversation.inTransaction(write);
    },
    warn: (line) => warnings.push(line),
    timing: { quietMs: options.quietMs ?? 1e9, maxDelayMs: options.maxDelayMs ?? 1e9 },
  });
  const stored = () => traces.recentTraces(MAX_STORED_TRACES + 10).length;
  return { db, traces, writes, warnings, stored, commits: () => commits };
}

let made = 0;
/** A finished turn's root span, each in a trace of its own. */
function turnSpan(): SpanRecord {
  made += 1;
  const next = made;
  return {
    traceId: `trace${next}`,
    spanId: `span${next}`,
    parentSpanId: null,
    kind: 'turn',
    name: 'turn',
    startedAt: next,
    endedAt: next + 1,
    status: 'ok',
    attributes: {},
  };
}

describe('TraceWrites', () => {
  test('buffered spans are written by a flush in one commit, or inside a commit the caller makes', () => {
    const { writes, traces, stored, commits, db } = setup();
    const first = turnSpan();
    writes.add(first);
    writes.add(turnSpan());
    expect(stored()).toBe(0);
    writes.flush();
    expect(stored()).toBe(2);
    expect(commits()).toBe(1);
    writes.flush();
    expect(commits()).toBe(1); // nothing buffered: no commit
    writes.add(turnSpan());
    db.transaction(() => writes.writeInto())();
    expect(stored()).toBe(3);
    expect(traces.spansOfTrace(first.traceId)[0]?.spanId).toBe(first.spanId);
  });

  test('an ended turn waits for quiet; 512 waiting spans, or closing, write at once', async () => {
    const quiet = setup({ quietMs: 2 });
    quiet.writes.add(turnSpan());
    quiet.writes.turnEnded();
    expect(quiet.stored()).toBe(0);
    while (quiet.stored() === 0) await Bun.sleep(1);
    expect(quiet.stored()).toBe(1);

    const full = setup();
    for (let index = 0; index < 511; index += 1) full.writes.add(turnSpan());
    full.writes.turnEnded();
    expect(full.stored()).toBe(0);
    full.writes.add(turnSpan());
    full.writes.turnEnded();
    expect(full.stored()).toBe(512);

    const closing = setup();
    closing.writes.add(turnSpan());
    closing.writes.turnEnded();
    closing.writes.close();
    expect(closing.stored()).toBe(1);
  });

  test('discard drops what is buffered', () => {
    const { writes, stored } = setup();
    writes.add(turnSpan());
    writes.discard();
    writes.flush();
    expect(stored()).toBe(0);
  });

  test('a failed write is reported, never thrown (traces are observers of the turn)', () => {
    const { writes, warnings, db } = setup();
    writes.add(turnSpan());
    db.close();
    expect(() => writes.flush()).not.toThrow();
    expect(warnings.join('\n')).toContain('trace write failed');
  });

  test('an instance that never goes quiet still prunes, after 1,000 ended turns, at the next span write', () => {
    const { writes, stored } = setup();
    for (let turn = 0; turn < MAX_STORED_TRACES + 5; turn += 1) {
      writes.add(turnSpan());
      writes.turnEnded();
      if (turn % 100 === 0) writes.flush();
    }
    writes.flush();
    expect(stored()).toBe(MAX_STORED_TRACES + 5);
    // The 1,000th ended turn made pruning due at the next write of ended turns (512 waiting spans trigger one).
    for (let index = 0; index < 512; index += 1) writes.add(turnSpan());
    writes.turnEnded();
    expect(stored()).toBe(MAX_STORED_TRACES);
  });
});
