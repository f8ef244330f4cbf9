import { existsSync } from 'node:fs';
import {
  type ApprovalRecord,
  ApprovalStore,
  AuditStore,
  ConversationStore,
  GoondanError,
  invalidInstanceKey,
  isInstanceKey,
  listInstanceDatabases,
  openInstanceDatabase,
  openScheduleStore,
  scheduleStorePath,
  traceSummaries,
} from '@goondan/core';
import { badRequest } from '../serve/api-error.ts';
import { readConversationPage } from '../serve/conversation-page.ts';
import { readSchedulePage, type SchedulePage } from '../serve/schedule-page.ts';
import { boundContent, fitPage, NAME_CHARS, shownApproval, shownAuditEntry } from './console-bounds.ts';
import type { ConsoleSource } from './console-source.ts';
import { readInstances } from './instance-reader.ts';

export interface TraceListFilter {
  agent?: string;
  instance?: string;
  status?: string;
  tool?: string;
  errorCode?: string;
  since?: number;
  until?: number;
  limit: number;
}

export interface TraceListItem {
  traceId: string;
  startedAt: number;
  durationMs: number;
  status: 'running' | 'ok' | 'error' | 'cancelled';
  /** The agent and instance whose turn began the trace (the first to store a root span, else the earliest). */
  agent: string;
  instanceKey: string;
  agents: string[];
  spans: number;
  tools: string[];
  /** Tools of the trace beyond the first LIST_NAMES, not listed. */
  toolsOmitted?: number;
  errorCodes: string[];
}

const pendingNow = (record: ApprovalRecord, now: number): ApprovalRecord =>
  record.status === 'pending' && record.expiresAt <= now ? { ...record, status: 'expired' } : record;

/** Instances of the bundle: stored ones and running ones, with open approvals and their last activity. */
export function consoleOverview(source: ConsoleSource) {
  const now = Date.now();
  const { results, problems } = readInstances(source.rootDir(), (db) => {
    const approvals = new ApprovalStore(db).list({ status: 'pending', limit: 100 }).map((r) => pendingNow(r, now));
    const [last] = traceSummaries(db, { limit: 1 });
    const pending = approvals.filter((r) => r.status === 'pending').map(shownApproval);
    return { approvals: pending, lastActivity: last?.endedAt ?? null };
  });
  const processes = source.processes?.() ?? [];
  const instances = results.map(({ file, value }) => {
    const running = processes.find((p) => p.agent === file.agentName && p.instanceKey === file.instanceKey);
    return {
      agent: file.agentName,
      instanceKey: file.instanceKey,
      state: running?.state ?? (source.mode === 'serve' ? 'idle' : 'stored'),
      pid: running?.pid ?? null,
      queueDepth: running?.queueDepth ?? 0,
      turnsServed: running?.turnsServed ?? 0,
      lastActivity: value.lastActivity,
      approvals: value.approvals,
    };
  });
  for (const process of processes) {
    if (instances.some((i) => i.agent === process.agent && i.instanceKey === process.instanceKey)) continue;
    instances.push({
      agent: process.agent,
      instanceKey: process.instanceKey,
      state: process.state,
      pid: process.pid,
      queueDepth: process.queueDepth,
      turnsServed: process.turnsServed,
      lastActivity: null,
      approvals: [],
    });
  }
  return { mode: source.mode, agents: source.agents(), instances, problems };
}

/** Tool names and error codes a list row shows: a model may call tools by thousands of names, of any length. */
const LIST_NAMES = 50;

function shortList(names: string[], max: number): string[] {
  return names.slice(0, LIST_NAMES).map((name) => (name.length > max ? `${name.slice(0, max)}…` : name));
}

function shownTraceItem(item: TraceListItem): TraceListItem {
  const omitted = Math.max(0, item.tools.length - LIST_NAMES);
  return {
    ...item,
    tools: shortList(item.tools, NAME_CHARS),
    errorCodes: shortList(item.errorCodes, 64),
    ...(omitted > 0 ? { toolsOmitted: omitted } : {}),
  };
}

function statusOf(summary: { running: number; errors: number; rootStatus: string | null }): TraceListItem['status'] {
  if (summary.running > 0) return 'running';
  if (summary.rootStatus === 'error' || summary.rootStatus === 'cancelled') return summary.rootStatus;
  return summary.errors > 0 ? 'error' : 'ok';
}

/** Traces of every instance, merged by trace id (a swarm trace spans several databases), newest first. */
export function consoleTraceList(source: ConsoleSource, filter: TraceListFilter) {
  const { results, problems } = readInstances(source.rootDir(), (db) =>
    traceSummaries(db, {
      limit: Math.max(filter.limit * 4, 200),
      ...(filter.since === undefined ? {} : { since: filter.since }),
      ...(filter.until === undefined ? {} : { until: filter.until }),
    }),
  );
  const merged = new Map<
    string,
    TraceListItem & { running: number; errors: number; rootStatus: string | null; rooted: boolean; endedAt: number }
  >();
  for (const { file, value } of results) {
    for (const summary of value) {
      const rooted = summary.rootStatus !== null;
      let item = merged.get(summary.traceId);
      if (!item) {
        item = {
          traceId: summary.traceId,
          startedAt: summary.startedAt,
          endedAt: summary.endedAt,
          durationMs: 0,
          status: 'ok',
          agent: file.agentName,
          instanceKey: file.instanceKey,
          agents: [],
          spans: 0,
          tools: [],
          errorCodes: [],
          running: 0,
          errors: 0,
          rootStatus: summary.rootStatus,
          rooted,
        };
        merged.set(summary.traceId, item);
      } else if (rooted && !item.rooted) {
        Object.assign(item, {
          agent: file.agentName,
          instanceKey: file.instanceKey,
          rootStatus: summary.rootStatus,
          rooted,
        });
      }
      item.startedAt = Math.min(item.startedAt, summary.startedAt);
      item.endedAt = Math.max(item.endedAt, summary.endedAt);
      item.spans += summary.spans;
      item.running += summary.running;
      item.errors += summary.errors;
      if (!item.agents.includes(file.agentName)) item.agents.push(file.agentName);
      for (const tool of summary.tools) if (!item.tools.includes(tool)) item.tools.push(tool);
      for (const code of summary.errorCodes) if (!item.errorCodes.includes(code)) item.errorCodes.push(code);
    }
  }
  const traces = [...merged.values()]
    .map(({ running, errors, rootStatus, rooted: _rooted, endedAt, ...item }) => ({
      ...item,
      status: statusOf({ running, errors, rootStatus }),
      durationMs: endedAt - item.startedAt,
    }))
    .filter(
      (trace) =>
        (!filter.agent || trace.agents.includes(filter.agent)) &&
        (!filter.instance || trace.instanceKey === filter.instance) &&
        (!filter.status || trace.status === filter.status) &&
        (!filter.tool || trace.tools.some((tool) => tool === filter.tool || tool.startsWith(`${filter.tool}__`))) &&
        (!filter.errorCode || trace.errorCodes.includes(filter.errorCode)),
    )
    .sort((a, b) => b.startedAt - a.startedAt)
    .slice(0, filter.limit)
    .map(shownTraceItem);
  return { traces, problems };
}

/** The newest audit rows of every instance, newest last. */
export function consoleAudit(
  source: ConsoleSource,
  filter: { agent?: string; tool?: string; decision?: string; limit: number },
) {
  const { results, problems } = readInstances(source.rootDir(), (db) =>
    new AuditStore(db).query({
      limit: filter.limit,
      ...(filter.agent ? { agent: filter.agent } : {}),
      ...(filter.tool ? { tool: filter.tool } : {}),
      ...(filter.decision ? { decision: filter.decision } : {}),
    }),
  );
  const entries = results
    .flatMap(({ value }) => value)
    .sort((a, b) => a.at - b.at)
    .slice(-filter.limit)
    .map(shownAuditEntry);
  return { entries, problems };
}

/** The stored conversation of one instance: its last `limit` messages, or the `limit` before the message `before`. */
export function consoleConversation(
  source: ConsoleSource,
  agent: string,
  instanceKey: string,
  page: { limit: number; before?: string },
) {
  // As GET /v1/agents/A/instances/K/conversation answers: a key no instance can have is a bad request.
  if (!isInstanceKey(instanceKey)) throw invalidInstanceKey(instanceKey);
  const known = listInstanceDatabases({ rootDir: source.rootDir() }).find(
    (file) => file.agentName === agent && file.instanceKey === instanceKey,
  );
  if (!known) {
    // The address is the requester's text: echoed short.
    const name = `${agent}/${instanceKey}`;
    const shown = name.length > 100 ? `${name.slice(0, 100)}…` : name;
    throw new GoondanError('E_INSTANCE_NOT_FOUND', `Agent instance ${shown} has never run here.`);
  }
  const db = openInstanceDatabase(known.databaseFile, { busyTimeoutMs: 1000, forReading: true });
  try {
    const { shown, earlier, total } = readConversationPage(new ConversationStore(db), page);
    // A huge message is shown cut, and a page stops at PAGE_CHARS: a 10 MB text is not 10 MB of answer and of DOM.
    const bounded = shown.map((message) => {
      const { content, cutChars } = boundContent(message.data.content);
      return {
        id: message.id,
        role: message.data.role,
        content,
        ...(cutChars > 0 ? { cutChars } : {}),
        source: message.source,
        createdAt: message.createdAt,
      };
    });
    const { kept, dropped } = fitPage(bounded);
    return {
      agent,
      instanceKey,
      total,
      earlier: dropped > 0 ? kept[0]!.id : earlier,
      messages: kept,
    };
  } finally {
    db.close();
  }
}

/**
 * A page of the bundle's schedules (`.goondan/schedules.db`), all statuses: the first `limit`, or the `limit` after
 * the schedule `after`, long fields cut (readSchedulePage, as GET /v1/schedules).
 */
export function consoleSchedules(source: ConsoleSource, page: { limit?: number; after?: string } = {}): SchedulePage {
  const path = scheduleStorePath({ rootDir: source.rootDir() });
  if (!existsSync(path)) {
    if (page.after !== undefined) throw badRequest(`'after' names no schedule: '${page.after.slice(0, 64)}'.`);
    return { total: 0, later: null, schedules: [] };
  }
  const store = openScheduleStore({ path });
  try {
    return readSchedulePage(store, { status: 'all' }, page);
  } finally {
    store.close();
  }
}
