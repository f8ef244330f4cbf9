// The console's trace outline, in process: the tree the server builds (trace-tree.ts) and the rows the page shows
// from it (client/waterfall-model.ts, no DOM needed).
import { describe, expect, test } from 'bun:test';
import type { ApprovalRecord } from '@goondan/core';
import { ROW_CROSS_AGENT, ROW_PENDING, type TraceOutline } from '../src/console/client/types.ts';
import { layoutTrace } from '../src/console/client/waterfall-model.ts';
import { buildOutline, type TreeSpan } from '../src/console/trace-tree.ts';

const sources = [
  { agent: 'coordinator', instanceKey: 'default' },
  { agent: 'worker', instanceKey: 'default' },
];

function span(partial: Partial<TreeSpan> & Pick<TreeSpan, 'spanId' | 'kind' | 'name' | 'startedAt'>): TreeSpan {
  return {
    parentSpanId: null,
    endedAt: partial.startedAt + 10,
    status: 'ok',
    source: 0,
    errorCode: null,
    inputTokens: null,
    outputTokens: null,
    toolCallId: null,
    turnId: null,
    caller: null,
    ...partial,
  };
}

const outline = (spans: TreeSpan[], approvals: ApprovalRecord[] = []) =>
  buildOutline({ traceId: 'f'.repeat(32), spans, sources: [...sources], approvals, problems: [], now: 10_000 });

/** Rows as "depth name [flags]" lines, to compare whole trees at a glance. */
function lines(trace: TraceOutline): string[] {
  return trace.rows.id.map((_, index) => {
    const flags = trace.rows.flags[index]!;
    const marks = `${flags & ROW_CROSS_AGENT ? ' cross' : ''}${flags & ROW_PENDING ? ' pending' : ''}`;
    return `${'  '.repeat(trace.rows.depth[index]!)}${trace.names[trace.rows.name[index]!]}${marks}`;
  });
}

// The coordinator's turn runs; its step 0 calls agents__request and is not stored until it ends. The worker's turn
// is stored at its start, with the calling step and call (attribute caller).
const coordinatorTurn = span({
  spanId: 'ct',
  kind: 'turn',
  name: 'turn coordinator',
  startedAt: 1000,
  endedAt: null,
  status: 'running',
  turnId: 'turn_c',
});
const workerTurn = span({
  spanId: 'wt',
  parentSpanId: 'call',
  kind: 'turn',
  name: 'turn worker',
  startedAt: 1300,
  endedAt: null,
  status: 'running',
  source: 1,
  turnId: 'turn_w',
  caller: {
    turnSpanId: 'ct',
    stepSpanId: 'cs',
    stepIndex: 0,
    stepStartedAt: 1100,
    toolName: 'agents__request',
    toolCallId: 'call_1',
    toolStartedAt: 1200,
  },
});
const workerStep = span({ spanId: 'ws', parentSpanId: 'wt', kind: 'step', name: 'step 0', startedAt: 1400, source: 1 });

describe('console trace outline', () => {
  test("a callee's turn nests under the calling request while the caller's step still runs", () => {
    const live = outline([coordinatorTurn, workerTurn, workerStep]);
    expect(lines(live)).toEqual([
      'turn coordinator',
      '  step 0 pending',
      '    tool agents__request pending',
      '      turn worker cross',
      '        step 0',
    ]);
    expect(live.rows.id).toEqual(['ct', 'cs', 'call', 'wt', 'ws']);
    expect(live.rows.status).toBe('rrrro');
    expect(live.rows.end.slice(0, 4)).toEqual([-1, -1, -1, -1]);
    expect(live.spans).toBe(3);
    expect(live.status).toBe('running');

    // The step ends: the stored spans take the placeholders' places, under the same ids.
    const stored = outline([
      { ...coordinatorTurn, endedAt: 3000, status: 'ok' },
      span({ spanId: 'cs', parentSpanId: 'ct', kind: 'step', name: 'step 0', startedAt: 1100, endedAt: 2900 }),
      span({
        spanId: 'call',
        parentSpanId: 'cs',
        kind: 'tool',
        name: 'tool agents__request',
        startedAt: 1200,
        endedAt: 2800,
        toolCallId: 'call_1',
      }),
      { ...workerTurn, endedAt: 2700, status: 'ok' },
      workerStep,
    ]);
    expect(lines(stored)).toEqual([
      'turn coordinator',
      '  step 0',
      '    tool agents__request',
      '      turn worker cross',
      '        step 0',
    ]);
    expect(stored.rows.id).toEqual(live.rows.id);
    expect(stored.status).toBe('ok');
  });

  test('a call waiting for approval shows under its turn; parallel calls, errors and tokens are kept', () => {
    const approval = {
      id: 'ap_1',
      agent: 'worker',
      instanceKey: 'default',
      turnId: 'turn_w',
      traceId: 'f'.repeat(32),
      toolCallId: 'call_bash',
      toolName: 'bash__exec',
      status: 'pending',
      createdAt: 1600,
      expiresAt: 99_999,
    } as unknown as ApprovalRecord;
    const spans = [
      { ...coordinatorTurn, endedAt: 3000, status: 'ok' as const },
      { ...workerTurn, parentSpanId: null, caller: null },
      workerStep,
      span({ spanId: 'wm', parentSpanId: 'ws', kind: 'model', name: 'model w', startedAt: 1401, source: 1 }),
      ...[0, 1, 2].map((n) =>
        span({
          spanId: `wc${n}`,
          parentSpanId: 'ws',
          kind: 'tool',
          name: 'tool calc__add',
          startedAt: 1420 + n,
          endedAt: 1500,
          source: 1,
          ...(n === 2 ? { status: 'error' as const, errorCode: 'E_TOOL' } : {}),
        }),
      ),
    ];
    spans[3] = { ...spans[3]!, inputTokens: 12, outputTokens: 3 };
    const trace = outline(spans, [approval]);
    const at = (id: string) => trace.rows.id.indexOf(id);
    expect(trace.rows.parallel[at('ws')]).toBe(3);
    expect(trace.rows.errorCode[at('wc2')]).toBe('E_TOOL');
    expect(trace.rows.tokens[at('wm')]).toEqual([12, 3]);
    expect(trace.errorCodes).toEqual(['E_TOOL']);
    const waiting = at('approval:ap_1');
    expect(trace.rows.depth[waiting]).toBe(trace.rows.depth[at('wt')]! + 1);
    expect(trace.rows.kind[waiting]).toBe('w');
    expect(trace.approvals[trace.rows.approval[waiting]!]!.id).toBe('ap_1');
    // Its call stored: no waiting row any more, and the call says which approval it asked.
    const ran = outline(
      [
        ...spans,
        span({
          spanId: 'wb',
          parentSpanId: 'ws',
          kind: 'tool',
          name: 'tool bash__exec',
          startedAt: 1700,
          source: 1,
          toolCallId: 'call_bash',
        }),
      ],
      [{ ...approval, status: 'approved' } as ApprovalRecord],
    );
    expect(ran.rows.id).not.toContain('approval:ap_1');
    expect(ran.rows.asked[ran.rows.id.indexOf('wb')]).toBe('ap_1');
  });

  test('a parent cycle or a missing parent loses no span; folding skips a whole subtree', () => {
    const trace = outline([
      span({ spanId: 'a', parentSpanId: 'b', kind: 'step', name: 'a', startedAt: 1 }),
      span({ spanId: 'b', parentSpanId: 'a', kind: 'step', name: 'b', startedAt: 2 }),
      span({ spanId: 'c', parentSpanId: 'gone', kind: 'turn', name: 'c', startedAt: 3 }),
      span({ spanId: 'd', parentSpanId: 'c', kind: 'step', name: 'd', startedAt: 4 }),
    ]);
    expect([...trace.rows.id].sort()).toEqual(['a', 'b', 'c', 'd']);
    const open = layoutTrace(trace, new Set());
    expect(open.count).toBe(4);
    const folded = layoutTrace(trace, new Set(['c']));
    expect(folded.count).toBe(3);
    expect(folded.position('d')).toBe(-1);
    const c = folded.row(folded.position('c'));
    expect(c).toMatchObject({ label: 'c', collapsed: true, childCount: 1, kind: 'turn' });
  });

  test('10,000 spans: the outline is built in one pass and folding a step is a jump', () => {
    const spans: TreeSpan[] = [span({ spanId: 't', kind: 'turn', name: 'turn big', startedAt: 0 })];
    for (let step = 0; spans.length < 10_000; step += 1) {
      spans.push(span({ spanId: `s${step}`, parentSpanId: 't', kind: 'step', name: `step ${step}`, startedAt: step }));
      for (let call = 0; call < 48 && spans.length < 10_000; call += 1) {
        const id = `s${step}c${call}`;
        spans.push(span({ spanId: id, parentSpanId: `s${step}`, kind: 'tool', name: 'tool x', startedAt: step }));
      }
    }
    const trace = outline(spans);
    expect(trace.rows.id.length).toBe(10_000);
    // Names are sent once each: the turn's, every step's, and the one tool's.
    expect(trace.names).toHaveLength(2 + spans.filter((s) => s.kind === 'step').length);
    expect(trace.rows.size[0]).toBe(9_999);
    const layout = layoutTrace(trace, new Set(['s0']));
    expect(layout.count).toBe(10_000 - 48);
    expect(layout.row(layout.count - 1).id).toBe(spans.at(-1)!.spanId);
  });
});
