import { getJson, streamEvents } from './api.ts';
import { errorLink, formatDuration, formatTime, h, statusBadge } from './dom.ts';
import { spanDetail } from './span-detail.ts';
import type { TraceDetail } from './types.ts';
import { layoutTrace, type Row } from './waterfall-model.ts';
import { Waterfall } from './waterfall-view.ts';

export interface ViewContext {
  main: HTMLElement;
  signal: AbortSignal;
  say(message: string): void;
  fail(thrown: unknown): void;
}

/** The waterfall of one trace and the details of the chosen span; follows the trace live while it runs. */
export async function traceView(context: ViewContext, traceId: string): Promise<void> {
  const { main, signal } = context;
  let trace = await getJson<TraceDetail>(`/console/api/traces/${encodeURIComponent(traceId)}`, signal);
  const collapsed = new Set<string>();
  let selected: Row | null = null;
  const detail = h(
    'div',
    { class: 'detail-pane' },
    h('p', { class: 'muted' }, 'Choose a span (click, or Enter) to see its details.'),
  );
  const summary = h('p', { class: 'summary' });
  const problems = h('div');
  const showDetail = (row: Row) => {
    selected = row;
    detail.replaceChildren(
      spanDetail(row, trace, {
        done: (message) => {
          context.say(message);
          void refresh();
        },
        failed: context.fail,
      }),
    );
  };
  // One layout per change of the data or of what is folded: it walks every span (10,000 in a big trace).
  let layout = layoutTrace(trace, collapsed);
  const waterfall = new Waterfall(layout, {
    onSelect: showDetail,
    onToggle: (row) => {
      if (collapsed.has(row.id)) collapsed.delete(row.id);
      else collapsed.add(row.id);
      layout = layoutTrace(trace, collapsed);
      waterfall.update(layout);
    },
  });
  const drawSummary = () => {
    const agents = [...new Set(trace.spans.map((span) => span.agent))];
    const running = trace.spans.some((span) => span.status === 'running');
    const root = trace.spans.find((span) => span.kind === 'turn' && span.parentSpanId === null);
    const codes = [
      ...new Set(
        trace.spans.map((span) => span.attributes.errorCode).filter((c): c is string => typeof c === 'string'),
      ),
    ];
    summary.replaceChildren(
      // The trace's status is its first turn's (a failed tool call the model recovered from is not a failed trace).
      statusBadge(
        running ? 'running' : (root?.status ?? (trace.spans.some((s) => s.status === 'error') ? 'error' : 'ok')),
      ),
      ` ${trace.spans.length} spans · ${agents.join(', ')} · started ${formatTime(layout.start)} · ${formatDuration(layout.end - layout.start)}`,
      ...codes.flatMap((code) => [' ', errorLink(code)]),
    );
    problems.replaceChildren(
      ...trace.problems.map((p) =>
        h('p', { class: 'problem', role: 'alert' }, errorLink(p.code), ` ${p.agent}/${p.instanceKey}: ${p.message}`),
      ),
    );
  };
  const refresh = async () => {
    trace = await getJson<TraceDetail>(`/console/api/traces/${encodeURIComponent(traceId)}`, signal);
    layout = layoutTrace(trace, collapsed);
    drawSummary();
    waterfall.update(layout);
    if (selected) {
      const row = layout.rows.find((r) => r.id === selected!.id);
      if (row) showDetail(row);
      else if (selected.approval) {
        // The call it waited for has run: show its span.
        const span = trace.spans.find((s) => s.attributes.toolCallId === selected!.approval!.toolCallId);
        const spanRow = span && layout.rows.find((r) => r.id === span.spanId);
        if (spanRow) {
          waterfall.select(spanRow.id);
          showDetail(spanRow);
        }
      }
    }
  };
  drawSummary();
  main.replaceChildren(
    h('h1', {}, 'Trace ', h('code', {}, traceId)),
    summary,
    problems,
    h('div', { class: 'trace-layout' }, waterfall.element, detail),
  );
  waterfall.render();
  // Live, while the trace runs or waits: the server tells when stored spans or approvals change; it is read again then.
  const unfinished =
    trace.spans.some((s) => s.status === 'running') || trace.approvals.some((a) => a.status === 'pending');
  if (!unfinished) return;
  let first = true;
  streamEvents(`/console/api/traces/${encodeURIComponent(traceId)}/live`, signal, () => {
    // The first event tells the state just read.
    if (first) {
      first = false;
      return;
    }
    refresh().catch((thrown) => {
      if (!signal.aborted) context.fail(thrown);
    });
  }).catch((thrown) => {
    if (!signal.aborted) context.fail(thrown);
  });
}
