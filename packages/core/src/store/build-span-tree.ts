import type { SpanRecord } from './trace-store.ts';

export interface SpanNode {
  span: SpanRecord;
  children: SpanNode[];
}

function byStart(a: SpanNode, b: SpanNode): number {
  return a.span.startedAt - b.span.startedAt;
}

function sortTree(nodes: SpanNode[]): void {
  nodes.sort(byStart);
  for (const node of nodes) sortTree(node.children);
}

/**
 * Nests spans under their parents, siblings ordered by start time (stable for ties). A span whose parent is
 * not among `spans` (the root, or a span whose parent lives in another agent's store) becomes a root, and so
 * does the earliest span of any parent cycle, so a printer walking the result always terminates.
 *
 * @example
 * for (const root of buildSpanTree(traceStore.spansOfTrace(traceId))) print(root, 0);
 */
export function buildSpanTree(spans: readonly SpanRecord[]): SpanNode[] {
  const nodes = new Map<string, SpanNode>();
  for (const span of spans) nodes.set(span.spanId, { span, children: [] });
  const parents = new Map<SpanNode, SpanNode>();
  const roots: SpanNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.span.parentSpanId === null ? undefined : nodes.get(node.span.parentSpanId);
    if (parent === undefined || parent === node) {
      roots.push(node);
    } else {
      parent.children.push(node);
      parents.set(node, parent);
    }
  }
  const reached = new Set<SpanNode>();
  const walk = (node: SpanNode): void => {
    reached.add(node);
    for (const child of node.children) walk(child);
  };
  for (const root of roots) walk(root);
  // Whatever is left hangs in a cycle: cut the earliest span of each loose from its parent.
  for (const node of [...nodes.values()].sort(byStart)) {
    if (reached.has(node)) continue;
    const parent = parents.get(node)!;
    parent.children.splice(parent.children.indexOf(node), 1);
    roots.push(node);
    walk(node);
  }
  sortTree(roots);
  return roots;
}
