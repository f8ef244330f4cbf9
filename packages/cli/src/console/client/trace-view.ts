import { getJson, streamEvents } from './api.ts';
import { errorLink, formatDuration, formatTime, h, statusBadge } from './dom.ts';
import { pendingDetail, spanDetail, waitingDetail } from './span-detail.ts';
import type { SpanDetail, TraceOutline } from './types.ts';
import { layoutTrace, positionOfAskedCall, type Row } from './waterfall-model.ts';
import { Waterfall } from './waterfall-view.ts';

export interface ViewContext {
  main: HTMLElement;
  signal: AbortSignal;
  say(message: string): void;
  fail(thrown: unknown): void;
}

/**
 * The waterfall of one trace and the details of the chosen span; follows the trace live while it runs. The page
 * gets the trace's outline (its rows, compact); a span's attributes, audit row and approval when it is opened.
 */
export async function traceView(context: ViewContext, traceId: string): Promise<void> {
  const { main, signal } = context;
  const base = `/console/api/traces/${encodeURIComponent(traceId)}`;
  let outline = await getJson<TraceOutline>(base, signal);
  const collapsed = new Set<string>();
  let selected: Row | null = null;
  let opening: AbortController | null = null;
  const detail = h(
    'div',
    { class: 'detail-pane' },
    h('p', { class: 'muted' }, 'Choose a span (click, or Enter) to see its details.'),
  );
  const summary = h('p', { class: 'summary' });
  const problems = h('div');
  const actions = {
    done: (message: string) => {
      context.say(message);
      void refresh();
    },
    failed: context.fail,
  };
  const showDetail = (row: Row) => {
    selected = row;
    opening?.abort();
    opening = null;
    if (row.approval) return detail.replaceChildren(waitingDetail(row.approval, actions));
    if (row.pending) return detail.replaceChildren(pendingDetail(row));
    const controller = new AbortController();
    opening = controller;
    signal.addEventListener('abort', () => controller.abort(), { once: true });
    if (!detail.querySelector(`[data-span="${CSS.escape(row.id)}"]`)) {
      detail.replaceChildren(h('p', { class: 'muted', role: 'status' }, `Loading ${row.label}…`));
    }
    getJson<SpanDetail>(`${base}/spans/${encodeURIComponent(row.id)}`, controller.signal)
      .then((answer) => {
        const section = spanDetail(answer);
        section.dataset.span = row.id;
        detail.replaceChildren(section);
      })
      .catch((thrown) => {
        if (!controller.signal.aborted) context.fail(thrown);
      });
  };
  // One layout per change of the data or of what is folded: a pass over the outline's rows, nothing per span.
  let layout = layoutTrace(outline, collapsed);
  const waterfall = new Waterfall(layout, {
    onSelect: showDetail,
    onToggle: (row) => {
      if (collapsed.has(row.id)) collapsed.delete(row.id);
      else collapsed.add(row.id);
      layout = layoutTrace(outline, collapsed);
      waterfall.update(layout);
    },
  });
  const drawSummary = () => {
    summary.replaceChildren(
      // The trace's status is its first turn's (a failed tool call the model recovered from is not a failed trace).
      statusBadge(outline.status),
      ` ${outline.spans} spans · ${outline.agents.join(', ')} · started ${formatTime(outline.start)} · ${formatDuration(outline.end - outline.start)}`,
      ...outline.errorCodes.flatMap((code) => [' ', errorLink(code)]),
    );
    problems.replaceChildren(
      ...outline.problems.map((p) =>
        h('p', { class: 'problem', role: 'alert' }, errorLink(p.code), ` ${p.agent}/${p.instanceKey}: ${p.message}`),
      ),
    );
  };
  const refresh = async () => {
    outline = await getJson<TraceOutline>(base, signal);
    layout = layoutTrace(outline, collapsed);
    drawSummary();
    waterfall.update(layout);
    if (!selected) return;
    const at = layout.position(selected.id);
    if (at >= 0) return showDetail(layout.row(at));
    if (selected.approval) {
      // The call it waited for has run: show its span.
      const call = positionOfAskedCall(outline, layout, selected.approval.id);
      if (call >= 0) {
        const row = layout.row(call);
        waterfall.select(row.id);
        showDetail(row);
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
  // For bench/console.ts: when the first rows were drawn, by the page's clock.
  performance.mark('gdn:first-row');
  // Live, while the trace runs or waits: the server tells when stored spans or approvals change; it is read again then.
  if (outline.status !== 'running' && outline.approvals.length === 0) return;
  let first = true;
  streamEvents(`${base}/live`, signal, () => {
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
