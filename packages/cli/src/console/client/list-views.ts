import { getJson } from './api.ts';
import { approvalActions } from './approval-actions.ts';
import { errorLink, formatDuration, formatTime, h, shownValue, statusBadge } from './dom.ts';
import type { ViewContext } from './trace-view.ts';
import type { Approval, AuditEntry, Problem } from './types.ts';

function table(caption: string, headers: string[], rows: HTMLElement[]): HTMLElement {
  return h(
    'table',
    {},
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, ...headers.map((name) => h('th', { scope: 'col' }, name)))),
    h('tbody', {}, ...rows),
  );
}

function problemList(problems: Problem[]): HTMLElement | null {
  if (problems.length === 0) return null;
  return h(
    'div',
    { role: 'alert' },
    ...problems.map((p) =>
      h(
        'p',
        { class: 'problem' },
        errorLink(p.code),
        ` ${p.agent}/${p.instanceKey}: ${p.message}`,
        p.suggestion ? ` ${p.suggestion}` : '',
      ),
    ),
  );
}

interface Overview {
  mode: string;
  agents: string[];
  instances: {
    agent: string;
    instanceKey: string;
    state: string;
    pid: number | null;
    turnsServed: number;
    queueDepth: number;
    lastActivity: number | null;
    approvals: Approval[];
  }[];
  problems: Problem[];
}

/** Agent instances with their state and open approvals (refreshed every 2 s while shown). */
export async function instancesView(context: ViewContext): Promise<void> {
  const draw = async () => {
    const overview = await getJson<Overview>('/console/api/overview', context.signal);
    document.getElementById('mode')!.textContent =
      overview.mode === 'serve' ? 'live (gdn serve)' : 'bundle (read from disk)';
    const pending = overview.instances.flatMap((i) => i.approvals);
    const rows = overview.instances.map((i) =>
      h(
        'tr',
        {},
        h('th', { scope: 'row' }, `${i.agent}/${i.instanceKey}`),
        h('td', {}, statusBadge(i.state)),
        h('td', {}, i.pid === null ? '—' : String(i.pid)),
        h('td', {}, String(i.turnsServed)),
        h('td', {}, formatTime(i.lastActivity)),
        h('td', {}, i.approvals.length ? h('strong', {}, String(i.approvals.length)) : '0'),
        h(
          'td',
          {},
          h(
            'a',
            { href: `#/traces?instance=${encodeURIComponent(i.instanceKey)}&agent=${encodeURIComponent(i.agent)}` },
            'traces',
          ),
          ' · ',
          h(
            'a',
            { href: `#/conversation/${encodeURIComponent(i.agent)}/${encodeURIComponent(i.instanceKey)}` },
            'conversation',
          ),
        ),
      ),
    );
    context.main.replaceChildren(
      h('h1', {}, 'Instances'),
      problemList(overview.problems) ?? '',
      overview.instances.length === 0
        ? h('p', {}, `No agent instance has run yet (agents: ${overview.agents.join(', ') || 'none'}).`)
        : table('Agent instances', ['instance', 'state', 'pid', 'turns', 'last activity', 'open approvals', ''], rows),
      h('h2', {}, `Open approvals (${pending.length})`),
      pending.length === 0
        ? h('p', { class: 'muted' }, 'No call is waiting for a person.')
        : h(
            'div',
            {},
            ...pending.map((approval) =>
              h(
                'div',
                { class: 'card' },
                h(
                  'p',
                  {},
                  `${approval.agent}/${approval.instanceKey} · `,
                  approval.traceId ? h('a', { href: `#/trace/${approval.traceId}` }, 'open its trace') : '',
                ),
                approvalActions(
                  approval,
                  (message) => {
                    context.say(message);
                    void draw();
                  },
                  context.fail,
                ),
              ),
            ),
          ),
    );
  };
  await draw();
  const timer = setInterval(() => {
    // Not while a person is typing a reason: the form would be drawn again under them.
    if (context.main.contains(document.activeElement) && document.activeElement?.tagName === 'INPUT') return;
    draw().catch((thrown) => {
      if (!context.signal.aborted) context.fail(thrown);
    });
  }, 2000);
  context.signal.addEventListener('abort', () => clearInterval(timer));
}

interface TraceItem {
  traceId: string;
  startedAt: number;
  durationMs: number;
  status: string;
  agent: string;
  instanceKey: string;
  agents: string[];
  spans: number;
  tools: string[];
  toolsOmitted?: number;
  errorCodes: string[];
}

const traceFilters = [
  ['agent', 'Agent', 'text'],
  ['instance', 'Instance', 'text'],
  ['tool', 'Tool', 'text'],
  ['error', 'Error code', 'text'],
  ['since', 'From', 'datetime-local'],
  ['until', 'To', 'datetime-local'],
] as const;

/** Traces of every instance, newest first, with filters kept in the address (#/traces?tool=…). */
export async function tracesView(context: ViewContext, query: URLSearchParams): Promise<void> {
  const api = new URLSearchParams();
  for (const [name, value] of query) {
    if (!value) continue;
    api.set(name, name === 'since' || name === 'until' ? String(new Date(value).getTime()) : value);
  }
  const { traces, problems } = await getJson<{ traces: TraceItem[]; problems: Problem[] }>(
    `/console/api/traces?${api}`,
    context.signal,
  );
  const form = h(
    'form',
    {
      class: 'filters',
      'aria-label': 'Filter traces',
      onsubmit: (event: Event) => {
        event.preventDefault();
        const data = new FormData(event.target as HTMLFormElement);
        const next = new URLSearchParams();
        for (const [name, value] of data) if (value) next.set(name, String(value));
        location.hash = `#/traces?${next}`;
      },
    },
    ...traceFilters.map(([name, label, type]) =>
      h('label', {}, label, h('input', { name, type, value: query.get(name) ?? '', autocomplete: 'off' })),
    ),
    h(
      'label',
      {},
      'Status',
      h(
        'select',
        { name: 'status' },
        ...['', 'running', 'ok', 'error', 'cancelled'].map((status) =>
          h('option', { value: status, selected: query.get('status') === status }, status || 'any'),
        ),
      ),
    ),
    h('button', { type: 'submit' }, 'Filter'),
  );
  const rows = traces.map((t) =>
    h(
      'tr',
      {},
      h('td', {}, h('a', { href: `#/trace/${t.traceId}` }, formatTime(t.startedAt))),
      h('td', {}, statusBadge(t.status)),
      h('td', {}, `${t.agent}/${t.instanceKey}`),
      h('td', {}, t.agents.join(', ')),
      h('td', {}, formatDuration(t.durationMs)),
      h('td', {}, String(t.spans)),
      h('td', {}, t.tools.join(', '), t.toolsOmitted ? ` and ${t.toolsOmitted} more` : ''),
      h('td', {}, ...t.errorCodes.flatMap((code) => [errorLink(code), ' '])),
    ),
  );
  context.main.replaceChildren(
    h('h1', {}, 'Traces'),
    form,
    problemList(problems) ?? '',
    traces.length === 0
      ? h('p', {}, 'No trace matches.')
      : table(
          `${traces.length} traces, newest first`,
          ['started', 'status', 'instance', 'agents', 'duration', 'spans', 'tools', 'errors'],
          rows,
        ),
  );
}

/** The audit log of every instance, newest last. */
export async function auditView(context: ViewContext): Promise<void> {
  const { entries, problems } = await getJson<{ entries: AuditEntry[]; problems: Problem[] }>(
    '/console/api/audit?limit=300',
    context.signal,
  );
  const rows = entries.map((e) =>
    h(
      'tr',
      {},
      h('td', {}, formatTime(e.at)),
      h('td', {}, `${e.agent}/${e.instanceKey}`),
      h('td', {}, h('code', {}, e.toolName)),
      h('td', {}, e.decision, e.rule ? h('span', { class: 'muted' }, ` (${e.rule})`) : ''),
      h('td', {}, e.approval ? `${e.approval.outcome}${e.approval.by ? ` by ${e.approval.by}` : ''}` : '—'),
      h('td', {}, statusBadge(e.status), e.errorCode ? [' ', errorLink(e.errorCode)] : ''),
      h('td', {}, formatDuration(e.durationMs)),
      h(
        'td',
        {},
        h(
          'details',
          {},
          h('summary', {}, 'arguments and output'),
          h('pre', { class: 'args' }, shownValue(e.args, 1500)),
          h('pre', { class: 'args' }, shownValue(e.output, 1500)),
        ),
        e.traceId ? h('a', { href: `#/trace/${e.traceId}` }, 'trace') : '',
      ),
    ),
  );
  context.main.replaceChildren(
    h('h1', {}, 'Audit log'),
    problemList(problems) ?? '',
    entries.length === 0
      ? h('p', {}, 'No tool call recorded yet.')
      : table(
          'Tool calls (redacted arguments and outputs)',
          ['time', 'instance', 'tool', 'decision', 'approval', 'status', 'duration', ''],
          rows,
        ),
  );
}

interface Schedule {
  id: string;
  agent: string;
  instanceKey: string;
  kind: string;
  expression: string;
  timeZone: string;
  label: string;
  input: string;
  /** Characters of the stored schedule the server did not send (an input of kilobytes, a long rule). */
  cutChars?: number;
  status: string;
  nextDueAt: number | null;
  lastFiredAt: number | null;
}

/**
 * The schedules of the bundle, 200 a page in the store's order (next due first; *Later schedules* pages on,
 * `?after=ID`), as the conversation view pages back.
 */
export async function schedulesView(context: ViewContext, search: URLSearchParams): Promise<void> {
  const route = '#/schedules';
  const after = search.get('after');
  const query = after ? `?after=${encodeURIComponent(after)}` : '';
  const { total, later, schedules } = await getJson<{ total: number; later: string | null; schedules: Schedule[] }>(
    `/console/api/schedules${query}`,
    context.signal,
  );
  const rows = schedules.map((s) =>
    h(
      'tr',
      {},
      h('td', {}, s.label || s.id),
      h('td', {}, `${s.agent}/${s.instanceKey}`),
      h('td', {}, `${s.kind} `, h('code', {}, s.expression), ` (${s.timeZone})`),
      h('td', {}, statusBadge(s.status)),
      h('td', {}, formatTime(s.nextDueAt)),
      h('td', {}, formatTime(s.lastFiredAt)),
      h(
        'td',
        {},
        s.input,
        s.cutChars ? h('span', { class: 'muted' }, ` … ${s.cutChars} more characters not shown here.`) : '',
      ),
    ),
  );
  const shown = `${schedules.length} shown`;
  context.main.replaceChildren(
    h('h1', {}, 'Schedules'),
    total === 0 && !after
      ? h('p', {}, 'No schedules.')
      : h(
          'p',
          { class: 'muted' },
          `${total} schedules; ${after ? `${shown}, after an earlier page` : `the first ${shown}`}. `,
          ...(later ? [h('a', { href: `${route}?after=${encodeURIComponent(later)}` }, 'Later schedules')] : []),
          ...(after ? [' ', h('a', { href: route }, 'First schedules')] : []),
        ),
    schedules.length === 0
      ? ''
      : table('Schedules of the bundle', ['label', 'instance', 'when', 'status', 'next', 'last fired', 'input'], rows),
  );
}

interface StoredMessage {
  id: string;
  role: string;
  content: unknown;
  /** Characters of the stored message the server did not send (a huge text, a tool result of megabytes). */
  cutChars?: number;
  source: { type: string; agentName?: string };
  createdAt: string;
}

function contentOf(content: unknown): (HTMLElement | string)[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [shownValue(content, 2000)];
  return content.map((part: Record<string, unknown> | null) => {
    if (part === null || typeof part !== 'object') return h('p', { class: 'muted' }, shownValue(part, 300));
    if (part.type === 'text') return h('p', {}, String(part.text ?? ''));
    if (part.type === 'tool-call')
      return h('p', { class: 'call' }, '→ ', h('code', {}, String(part.toolName)), ' ', shownValue(part.input, 300));
    if (part.type === 'tool-result')
      return h('p', { class: 'call' }, '← ', h('code', {}, String(part.toolName)), ' ', shownValue(part.output, 300));
    return h('p', { class: 'muted' }, String(part.type));
  });
}

/** The conversation of an instance, 200 messages a page: the last ones, or those before `before` (`?before=ID`). */
export async function conversationView(
  context: ViewContext,
  agent: string,
  instanceKey: string,
  search: URLSearchParams,
): Promise<void> {
  const route = `#/conversation/${encodeURIComponent(agent)}/${encodeURIComponent(instanceKey)}`;
  const before = search.get('before');
  const query = before ? `?before=${encodeURIComponent(before)}` : '';
  const path = `/console/api/conversation/${encodeURIComponent(agent)}/${encodeURIComponent(instanceKey)}${query}`;
  const conversation = await getJson<{ total: number; earlier: string | null; messages: StoredMessage[] }>(
    path,
    context.signal,
  );
  const shown = `${conversation.messages.length} shown`;
  context.main.replaceChildren(
    h('h1', {}, `Conversation of ${agent}/${instanceKey}`),
    h(
      'p',
      { class: 'muted' },
      `${conversation.total} messages; ${before ? `${shown}, before a later page` : `the last ${shown}`}. `,
      ...(conversation.earlier
        ? [h('a', { href: `${route}?before=${encodeURIComponent(conversation.earlier)}` }, 'Earlier messages')]
        : []),
      ...(before ? [' ', h('a', { href: route }, 'Latest messages')] : []),
    ),
    h(
      'ol',
      { class: 'conversation' },
      ...conversation.messages.map((m) =>
        h(
          'li',
          { class: `msg r-${m.role}` },
          h(
            'div',
            { class: 'who' },
            m.role,
            m.source.agentName ? ` (from ${m.source.agentName})` : '',
            ' · ',
            formatTime(Date.parse(m.createdAt)),
          ),
          ...contentOf(m.content),
          m.cutChars
            ? h('p', { class: 'muted' }, `… ${m.cutChars} more characters of this message are not shown here.`)
            : '',
        ),
      ),
    ),
  );
}
