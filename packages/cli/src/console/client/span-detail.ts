import { approvalActions } from './approval-actions.ts';
import { errorLink, formatDuration, formatTime, h, shownValue, statusBadge } from './dom.ts';
import type { Approval, AuditEntry, SpanDetail } from './types.ts';
import type { Row } from './waterfall-model.ts';

function field(name: string, ...value: (Node | string)[]): HTMLElement[] {
  return [h('dt', {}, name), h('dd', {}, ...value)];
}

function approvalFields(approval: Approval): HTMLElement[] {
  const waited = (approval.decidedAt ?? Date.now()) - approval.createdAt;
  return [
    ...field('approval', statusBadge(approval.status), approval.scope ? ` (${approval.scope})` : ''),
    ...field('answered by', approval.decidedBy ?? '—'),
    ...field('waited', formatDuration(waited)),
    ...(approval.reason ? field('reason', approval.reason) : []),
  ];
}

function auditFields(entry: AuditEntry): HTMLElement[] {
  return [
    ...field('decision', h('strong', {}, entry.decision), entry.rule ? ` — ${entry.rule}` : ''),
    ...field('category', entry.category ?? '—'),
    ...field('source', entry.source ?? '—'),
    ...(entry.approval
      ? field('approval', `${entry.approval.outcome}${entry.approval.by ? ` by ${entry.approval.by}` : ''}`)
      : []),
  ];
}

/** A call waiting for a person: who asks, and the buttons to answer. */
export function waitingDetail(
  approval: Approval,
  actions: { done(message: string): void; failed(thrown: unknown): void },
): HTMLElement {
  return h(
    'section',
    { class: 'detail', 'aria-label': 'Span details' },
    h('h3', {}, `${approval.toolName} — waiting for approval`),
    h(
      'dl',
      {},
      ...field('agent', `${approval.agent}/${approval.instanceKey}`),
      ...field('asked', formatTime(approval.createdAt)),
    ),
    approvalActions(approval, actions.done, actions.failed),
  );
}

/** A caller's step or call that runs and is not stored yet: what the callee's turn told of it. */
export function pendingDetail(row: Row): HTMLElement {
  return h(
    'section',
    { class: 'detail', 'aria-label': 'Span details' },
    h('h3', {}, row.label),
    h(
      'dl',
      {},
      ...field('status', statusBadge('running')),
      ...field('agent', `${row.agent}/${row.instanceKey}`),
      ...field('started', formatTime(row.start)),
    ),
    h('p', { class: 'muted' }, 'Stored when its step ends; its details show then.'),
  );
}

/** Everything known about one span: timing, tokens and cache, catalog, error, audit row, approval. */
export function spanDetail(detail: SpanDetail): HTMLElement {
  const { span, audit: entry, approval } = detail;
  const fields: HTMLElement[] = [];
  let extra: (HTMLElement | null)[] = [];
  const a = span.attributes;
  fields.push(
    ...field('status', statusBadge(span.status)),
    ...field('agent', `${span.agent}/${span.instanceKey}`),
    ...field('started', formatTime(span.startedAt)),
    ...field('duration', span.endedAt === null ? 'running' : formatDuration(span.endedAt - span.startedAt)),
  );
  if (typeof a.errorCode === 'string')
    fields.push(
      ...field('error', errorLink(a.errorCode), typeof a.errorMessage === 'string' ? ` ${a.errorMessage}` : ''),
    );
  if (span.kind === 'turn') {
    fields.push(...field('event', String(a.eventType ?? '—')), ...field('steps', String(a.steps ?? '—')));
    fields.push(...field('tokens', `${a.inputTokens ?? 0} in, ${a.outputTokens ?? 0} out`));
  }
  if (span.kind === 'model') {
    fields.push(
      ...field('model', `${a.provider ?? ''}${a.provider ? ' · ' : ''}${a.model ?? span.name.replace(/^model /, '')}`),
      ...field('tokens', `${a.inputTokens ?? 0} in, ${a.outputTokens ?? 0} out`),
      ...field(
        'cache',
        a.cacheReadTokens === undefined && a.cacheWriteTokens === undefined
          ? 'not reported'
          : `${a.cacheReadTokens ?? 0} read, ${a.cacheWriteTokens ?? 0} written`,
      ),
      ...field('finish', String(a.finishReason ?? '—')),
      ...field('tool calls', String(a.toolCalls ?? 0)),
    );
  }
  if (span.kind === 'step') {
    const catalog = Array.isArray(a.catalog) ? (a.catalog as string[]) : null;
    fields.push(...field('tools offered', String(a.tools ?? catalog?.length ?? '—')));
    extra.push(
      h('h4', {}, 'Catalog offered at this step'),
      catalog
        ? h('ul', { class: 'catalog' }, ...catalog.map((name) => h('li', {}, h('code', {}, name))))
        : h('p', { class: 'muted' }, 'Not recorded for this span (stored by an older version).'),
    );
  }
  if (span.kind === 'tool') {
    if (entry) fields.push(...auditFields(entry));
    if (approval) fields.push(...approvalFields(approval));
    extra = [
      h('h4', {}, 'Arguments (redacted, from the audit log)'),
      h('pre', { class: 'args' }, entry ? shownValue(entry.args, 4000) : 'No audit row for this call.'),
      h('h4', {}, 'Output'),
      h('pre', { class: 'args' }, entry ? shownValue(entry.output, 4000) : '—'),
    ];
    if (typeof a.errorStack === 'string')
      extra.push(h('details', {}, h('summary', {}, 'Stack'), h('pre', { class: 'args' }, a.errorStack)));
  }
  return h(
    'section',
    { class: 'detail', 'aria-label': 'Span details' },
    h('h3', {}, span.name),
    h('dl', {}, ...fields),
    ...extra,
  );
}
