import type { ApprovalRecord } from '@goondan/core';
import {
  KIND_LETTERS,
  type OutlineRows,
  type Problem,
  ROW_CROSS_AGENT,
  ROW_PENDING,
  STATUS_LETTERS,
  type TraceOutline,
} from './client/types.ts';

/** The caller of an inter-agent request, as a callee's turn span records it (attribute `caller`). */
export interface SpanCaller {
  turnSpanId: string;
  stepSpanId: string;
  stepIndex: number;
  stepStartedAt: number;
  toolName: string;
  toolCallId: string;
  toolStartedAt: number;
}

/** What the waterfall needs of a span (the rest is read when the span is opened). */
export interface TreeSpan {
  spanId: string;
  parentSpanId: string | null;
  kind: 'turn' | 'step' | 'model' | 'tool';
  name: string;
  startedAt: number;
  endedAt: number | null;
  status: 'ok' | 'error' | 'running' | 'cancelled';
  /** Index into the outline's sources (the instance that stored it). */
  source: number;
  errorCode: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  toolCallId: string | null;
  /** Turn spans: their turn id, and the calling step and call of a request. */
  turnId: string | null;
  caller: SpanCaller | null;
}

interface Node {
  id: string;
  span: TreeSpan | null;
  /** Index into the outline's approvals for a call waiting for one. */
  approval: number;
  pending: boolean;
  start: number;
  end: number | null;
  agent: string;
  children: Node[];
}

export interface OutlineInput {
  traceId: string;
  spans: TreeSpan[];
  sources: { agent: string; instanceKey: string }[];
  /** The trace's approvals, oldest first; pending ones whose call has no span yet become rows. */
  approvals: ApprovalRecord[];
  problems: Problem[];
  now: number;
}

/** Most tool calls (or waiting calls) among `children` running at one instant. */
function maxOverlap(children: Node[], now: number): number {
  const edges: [number, number][] = [];
  for (const child of children) {
    if (child.span?.kind !== 'tool' && child.approval < 0) continue;
    edges.push([child.start, 1], [child.end ?? now, -1]);
  }
  if (edges.length < 4) return edges.length / 2;
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let most = 0;
  for (const [, delta] of edges) {
    open += delta;
    most = Math.max(most, open);
  }
  return most;
}

/**
 * The waterfall of a trace, built once on the server: spans of every agent under their parents (a callee's turn
 * under the caller's `agents__request` call), calls waiting for approval under their turn, and, while a caller's
 * step still runs, that step and call made from what the callee's turn recorded (`caller`), so the callee nests at
 * once. Rows come in the order drawn, each followed by its subtree; O(n log n) in the spans.
 */
export function buildOutline(input: OutlineInput): TraceOutline {
  const { spans, sources, now } = input;
  const byId = new Map<string, Node>();
  const nodeOf = (span: TreeSpan, pending: boolean): Node => ({
    id: span.spanId,
    span,
    approval: -1,
    pending,
    start: span.startedAt,
    end: span.endedAt,
    agent: sources[span.source]?.agent ?? '',
    children: [],
  });
  for (const span of spans) byId.set(span.spanId, nodeOf(span, false));
  // A callee's turn whose calling call is not stored yet: the caller's step and call, running, from its record.
  for (const span of spans) {
    const caller = span.caller;
    if (!caller || !span.parentSpanId || byId.has(span.parentSpanId)) continue;
    const source = byId.get(caller.turnSpanId)?.span?.source ?? span.source;
    const base = { endedAt: null, status: 'running' as const, source, errorCode: null, inputTokens: null };
    const extra = { outputTokens: null, turnId: null, caller: null };
    if (!byId.has(caller.stepSpanId)) {
      const step: TreeSpan = {
        ...base,
        ...extra,
        spanId: caller.stepSpanId,
        parentSpanId: caller.turnSpanId,
        kind: 'step',
        name: `step ${caller.stepIndex}`,
        startedAt: caller.stepStartedAt,
        toolCallId: null,
      };
      byId.set(step.spanId, nodeOf(step, true));
    }
    const call: TreeSpan = {
      ...base,
      ...extra,
      spanId: span.parentSpanId,
      parentSpanId: caller.stepSpanId,
      kind: 'tool',
      name: `tool ${caller.toolName}`,
      startedAt: caller.toolStartedAt,
      toolCallId: caller.toolCallId,
    };
    byId.set(call.spanId, nodeOf(call, true));
  }
  const roots: Node[] = [];
  for (const node of byId.values()) {
    const parentId = node.span!.parentSpanId;
    const parent = parentId ? byId.get(parentId) : undefined;
    if (parent && parent !== node) parent.children.push(node);
    else roots.push(node);
  }
  // A call waiting for a person is not a span yet: it shows under its turn.
  const answered = new Set<string>();
  const turns = new Map<string, Node>();
  for (const node of byId.values()) {
    const span = node.span!;
    if (span.toolCallId && !node.pending) answered.add(span.toolCallId);
    if (span.kind === 'turn' && span.turnId) turns.set(span.turnId, node);
  }
  const shown: ApprovalRecord[] = [];
  for (const approval of input.approvals) {
    if (approval.status !== 'pending' || answered.has(approval.toolCallId)) continue;
    const node: Node = {
      id: `approval:${approval.id}`,
      span: null,
      approval: shown.length,
      pending: false,
      start: approval.createdAt,
      end: null,
      agent: approval.agent,
      children: [],
    };
    shown.push(approval);
    let turn = approval.turnId ? turns.get(approval.turnId) : undefined;
    turn ??= [...turns.values()].find((t) => t.agent === approval.agent && t.span!.status === 'running');
    (turn ? turn.children : roots).push(node);
    byId.set(node.id, node);
  }
  // Spans caught in a parent cycle are listed at the top level rather than lost.
  const reached = new Set<Node>();
  const reach = (from: Node) => {
    const stack = [from];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (reached.has(node)) continue;
      reached.add(node);
      for (const child of node.children) stack.push(child);
    }
  };
  for (const root of roots) reach(root);
  for (const node of byId.values()) {
    if (reached.has(node)) continue;
    roots.push(node);
    reach(node);
  }
  let start = Number.POSITIVE_INFINITY;
  let end = 0;
  for (const node of byId.values()) {
    start = Math.min(start, node.start);
    end = Math.max(end, node.end ?? now);
  }
  if (byId.size === 0) start = end = now;
  end = Math.max(end, start + 1);

  const rows: OutlineRows = {
    id: [],
    depth: [],
    size: [],
    children: [],
    kind: '',
    status: '',
    name: [],
    start: [],
    end: [],
    source: [],
    flags: [],
    parallel: {},
    errorCode: {},
    tokens: {},
    approval: {},
    asked: {},
  };
  const askedBy = new Map(input.approvals.map((approval) => [approval.toolCallId, approval.id]));
  const kinds: string[] = [];
  const statuses: string[] = [];
  const names = new Map<string, number>();
  const nameIndex = (name: string) => {
    let index = names.get(name);
    if (index === undefined) {
      index = names.size;
      names.set(name, index);
    }
    return index;
  };
  const sourceOf = (agent: string, instanceKey: string) => {
    const index = sources.findIndex((s) => s.agent === agent && s.instanceKey === instanceKey);
    if (index >= 0) return index;
    sources.push({ agent, instanceKey });
    return sources.length - 1;
  };
  const add = (node: Node, depth: number, parentAgent: string | null): number => {
    node.children.sort((a, b) => a.start - b.start);
    const at = rows.id.length;
    const span = node.span;
    const approval = node.approval >= 0 ? shown[node.approval]! : null;
    rows.id.push(node.id);
    rows.depth.push(depth);
    rows.size.push(0);
    rows.children.push(node.children.length);
    kinds.push(span ? KIND_LETTERS[span.kind] : KIND_LETTERS.waiting);
    statuses.push(span ? STATUS_LETTERS[span.status] : STATUS_LETTERS.waiting);
    rows.name.push(nameIndex(span ? span.name : `tool ${approval!.toolName} — waiting for approval`));
    rows.start.push(node.start - start);
    rows.end.push(node.end === null ? -1 : node.end - start);
    rows.source.push(span ? span.source : sourceOf(approval!.agent, approval!.instanceKey));
    rows.flags.push(
      (parentAgent !== null && node.agent !== parentAgent ? ROW_CROSS_AGENT : 0) | (node.pending ? ROW_PENDING : 0),
    );
    if (span?.kind === 'step') {
      const parallel = maxOverlap(node.children, now);
      if (parallel > 1) rows.parallel[at] = parallel;
    }
    if (span?.errorCode) rows.errorCode[at] = span.errorCode;
    if (span?.kind === 'model') rows.tokens[at] = [span.inputTokens ?? 0, span.outputTokens ?? 0];
    if (approval) rows.approval[at] = node.approval;
    const asked = span?.toolCallId && !node.pending ? askedBy.get(span.toolCallId) : undefined;
    if (asked) rows.asked[at] = asked;
    return at;
  };
  // Depth first, without recursion (a corrupt parent chain may be deep); a row's size is known when it is left.
  const seen = new Set<Node>();
  const stack: { node: Node; depth: number; parentAgent: string | null; at: number }[] = [];
  roots.sort((a, b) => a.start - b.start);
  for (let index = roots.length - 1; index >= 0; index -= 1)
    stack.push({ node: roots[index]!, depth: 0, parentAgent: null, at: -1 });
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.at >= 0) {
      stack.pop();
      rows.size[top.at] = rows.id.length - top.at - 1;
      continue;
    }
    if (seen.has(top.node)) {
      stack.pop();
      continue;
    }
    seen.add(top.node);
    top.at = add(top.node, top.depth, top.parentAgent);
    const { children } = top.node;
    for (let index = children.length - 1; index >= 0; index -= 1)
      stack.push({ node: children[index]!, depth: top.depth + 1, parentAgent: top.node.agent, at: -1 });
  }
  rows.kind = kinds.join('');
  rows.status = statuses.join('');

  const stored = spans.length;
  const running = spans.some((span) => span.status === 'running');
  const root = spans.find((span) => span.kind === 'turn' && span.parentSpanId === null);
  const status: TraceOutline['status'] = running
    ? 'running'
    : ((root?.status as TraceOutline['status'] | undefined) ??
      (spans.some((span) => span.status === 'error') ? 'error' : 'ok'));
  const agents = [...new Set(spans.map((span) => sources[span.source]?.agent ?? ''))];
  const errorCodes = [...new Set(spans.flatMap((span) => (span.errorCode ? [span.errorCode] : [])))];
  return {
    traceId: input.traceId,
    start,
    end,
    status,
    spans: stored,
    agents,
    errorCodes,
    sources,
    names: [...names.keys()],
    rows,
    approvals: shown,
    problems: input.problems,
  };
}
