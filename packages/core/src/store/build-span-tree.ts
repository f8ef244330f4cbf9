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
 * The turn a span whose parent is not among the spans belongs to: every span but a turn's is made inside one turn
 * of its own agent, and a step's span is written when the step ends, so a step cut off (a killed process) or still
 * running leaves its model and tool spans without their parent. The latest turn of the same trace that started at
 * or before the span; none for a turn (its parent may be another agent's) or a span before every turn.
 */
function enclosingTurn(node: SpanNode, turns: readonly SpanNode[]): SpanNode | undefined {
  if (node.span.kind === 'turn') return undefined;
  let found: SpanNode | undefined;
  for (const turn of turns) {
    if (turn.span.startedAt > node.span.startedAt) break;
    if (turn.span.traceId === node.span.traceId) found = turn;
  }
  return found;
}

/**
 * Nests spans under their parents, siblings ordered by start time (stable for ties). A span whose parent is
 * not among `spans` goes under the turn it was made in (enclosingTurn: its step's span is not written yet), or, for
 * a turn (the root, or one whose parent lives in another agent's store), becomes a root; so does the earliest span
 * of any parent cycle, so a printer walking the result always terminates.
 *
 * @example
 * for (const root of buildSpanTree(traceStore.spansOfTrace(traceId))) print(root, 0);
 */
export function buildSpanTree(spans: readonly SpanRecord[]): SpanNode[] {
  const nodes = new Map<string, SpanNode>();
  for (const span of spans) nodes.set(span.spanId, { span, children: [] });
  const parents = new Map<SpanNode, SpanNode>();
  const roots: SpanNode[] = [];
  const turns = [...nodes.values()].filter((node) => node.span.kind === 'turn').sort(byStart);
  for (const node of nodes.values()) {
    const parent =
      node.span.parentSpanId === null ? undefined : (nodes.get(node.span.parentSpanId) ?? enclosingTurn(node, turns));
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
