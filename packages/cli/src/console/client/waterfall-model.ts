import type { Approval, Span, TraceDetail } from './types.ts';

/** One line of the waterfall: a span, or a call waiting for approval (not a span until it ends). */
export interface Row {
  id: string;
  depth: number;
  span: Span | null;
  approval: Approval | null;
  label: string;
  start: number;
  end: number;
  status: string;
  childCount: number;
  /** The span belongs to another agent than its parent (a request nested inline). */
  crossAgent: boolean;
  /** Tool calls of this step that ran at the same time. */
  parallel: number;
}

interface Node {
  span: Span | null;
  approval: Approval | null;
  children: Node[];
}

export interface TraceLayout {
  rows: Row[];
  start: number;
  end: number;
  byId: Map<string, Node>;
}

const startOf = (node: Node) => node.span?.startedAt ?? node.approval?.createdAt ?? 0;

/** Most tool calls of `children` running at one instant. */
function maxOverlap(children: Node[], now: number): number {
  const edges: [number, number][] = [];
  for (const child of children) {
    if (child.span?.kind !== 'tool' && !child.approval) continue;
    edges.push([startOf(child), 1], [child.span?.endedAt ?? now, -1]);
  }
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
 * Builds the tree of a trace (spans of every agent under their parents, a callee's turn under the caller's tool
 * call; waiting approvals under their turn) and flattens it into rows, skipping the children of `collapsed` ids.
 */
export function layoutTrace(trace: TraceDetail, collapsed: ReadonlySet<string>, now = Date.now()): TraceLayout {
  const byId = new Map<string, Node>();
  for (const span of trace.spans) byId.set(span.spanId, { span, approval: null, children: [] });
  const roots: Node[] = [];
  for (const node of byId.values()) {
    const parent = node.span!.parentSpanId ? byId.get(node.span!.parentSpanId) : undefined;
    if (parent && parent !== node) parent.children.push(node);
    else roots.push(node);
  }
  // A call waiting for a person is not a span yet: show it under its running turn.
  const answered = new Set(trace.spans.map((span) => span.attributes.toolCallId));
  for (const approval of trace.approvals) {
    if (approval.status !== 'pending' || answered.has(approval.toolCallId)) continue;
    const turn = trace.spans.find((s) => s.kind === 'turn' && s.agent === approval.agent && s.status === 'running');
    const node: Node = { span: null, approval, children: [] };
    byId.set(`approval:${approval.id}`, node);
    (turn ? byId.get(turn.spanId)!.children : roots).push(node);
  }
  // Spans caught in a parent cycle are listed at the top level rather than lost.
  const reached = new Set<Node>();
  const reach = (from: Node) => {
    const stack = [from];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (reached.has(node)) continue;
      reached.add(node);
      stack.push(...node.children);
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
    start = Math.min(start, startOf(node));
    end = Math.max(end, node.span ? (node.span.endedAt ?? now) : now);
  }
  const rows: Row[] = [];
  const seen = new Set<Node>();
  const visit = (node: Node, depth: number, parentAgent: string | null) => {
    if (seen.has(node)) return;
    seen.add(node);
    node.children.sort((a, b) => startOf(a) - startOf(b));
    const span = node.span;
    const nodeStart = startOf(node);
    const nodeEnd = span ? (span.endedAt ?? now) : now;
    const agent = span?.agent ?? node.approval?.agent ?? null;
    const id = span ? span.spanId : `approval:${node.approval!.id}`;
    rows.push({
      id,
      depth,
      span,
      approval: node.approval,
      label: span ? span.name : `tool ${node.approval!.toolName} — waiting for approval`,
      start: nodeStart,
      end: nodeEnd,
      status: span ? span.status : 'waiting',
      childCount: node.children.length,
      crossAgent: parentAgent !== null && agent !== parentAgent,
      parallel: span?.kind === 'step' ? maxOverlap(node.children, now) : 0,
    });
    if (collapsed.has(id)) return;
    for (const child of node.children) visit(child, depth + 1, agent);
  };
  roots.sort((a, b) => startOf(a) - startOf(b));
  for (const root of roots) visit(root, 0, null);
  if (rows.length === 0) start = end = now;
  return { rows, start, end: Math.max(end, start + 1), byId };
}
