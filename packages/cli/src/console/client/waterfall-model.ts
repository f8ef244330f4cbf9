import { type Approval, ROW_CROSS_AGENT, ROW_PENDING, type TraceOutline } from './types.ts';

export type RowKind = 'turn' | 'step' | 'model' | 'tool' | 'waiting';

/** One line of the waterfall, made when it is drawn: a span, or a call waiting for approval. */
export interface Row {
  id: string;
  depth: number;
  kind: RowKind;
  label: string;
  /** Epoch ms; a running row ends at the trace's end. */
  start: number;
  end: number;
  status: string;
  childCount: number;
  collapsed: boolean;
  /** Another agent than its parent's (a request nested inline). */
  crossAgent: boolean;
  /** A caller's step or call not stored yet (it is stored when the step ends): nothing more to open. */
  pending: boolean;
  /** Tool calls of this step that ran at the same time. */
  parallel: number;
  agent: string;
  instanceKey: string;
  errorCode: string | null;
  tokens: [number, number] | null;
  approval: Approval | null;
}

/** The rows shown (folded subtrees left out), by position; a Row is made only for the rows drawn. */
export interface TraceLayout {
  count: number;
  start: number;
  end: number;
  row(position: number): Row;
  /** Position of the row with this id, or -1 (not in the trace, or folded away). */
  position(id: string): number;
}

const KINDS: Record<string, RowKind> = { t: 'turn', s: 'step', m: 'model', c: 'tool', w: 'waiting' };
const STATUSES: Record<string, string> = { o: 'ok', e: 'error', r: 'running', x: 'cancelled', w: 'waiting' };

/**
 * The rows of an outline (already in the order drawn, each followed by its subtree) minus the subtrees of
 * `collapsed` ids: one pass that jumps over a folded subtree, nothing per row otherwise.
 */
export function layoutTrace(outline: TraceOutline, collapsed: ReadonlySet<string>): TraceLayout {
  const rows = outline.rows;
  const total = rows.id.length;
  let shown: Int32Array | null = null;
  if (collapsed.size > 0) {
    const list: number[] = [];
    for (let index = 0; index < total; index += 1) {
      list.push(index);
      if (collapsed.has(rows.id[index]!)) index += rows.size[index]!;
    }
    shown = Int32Array.from(list);
  }
  let ids: Map<string, number> | null = null;
  const indexAt = (position: number) => (shown ? shown[position]! : position);
  return {
    count: shown ? shown.length : total,
    start: outline.start,
    end: outline.end,
    row(position) {
      const index = indexAt(position);
      const source = outline.sources[rows.source[index]!];
      const end = rows.end[index]!;
      const approval = rows.approval[index];
      const id = rows.id[index]!;
      return {
        id,
        depth: rows.depth[index]!,
        kind: KINDS[rows.kind[index]!] ?? 'tool',
        label: outline.names[rows.name[index]!] ?? '',
        start: outline.start + rows.start[index]!,
        end: end < 0 ? outline.end : outline.start + end,
        status: STATUSES[rows.status[index]!] ?? 'ok',
        childCount: rows.children[index]!,
        collapsed: rows.children[index]! > 0 && collapsed.has(id),
        crossAgent: (rows.flags[index]! & ROW_CROSS_AGENT) !== 0,
        pending: (rows.flags[index]! & ROW_PENDING) !== 0,
        parallel: rows.parallel[index] ?? 0,
        agent: source?.agent ?? '',
        instanceKey: source?.instanceKey ?? '',
        errorCode: rows.errorCode[index] ?? null,
        tokens: rows.tokens[index] ?? null,
        approval: approval === undefined ? null : (outline.approvals[approval] ?? null),
      };
    },
    position(id) {
      ids ??= new Map(rows.id.map((rowId, index) => [rowId, index]));
      const index = ids.get(id);
      if (index === undefined) return -1;
      if (!shown) return index;
      // `shown` is sorted: binary search.
      let low = 0;
      let high = shown.length - 1;
      while (low <= high) {
        const middle = (low + high) >> 1;
        const value = shown[middle]!;
        if (value === index) return middle;
        if (value < index) low = middle + 1;
        else high = middle - 1;
      }
      return -1;
    },
  };
}

/** Position of the tool call that a (now answered) approval asked about, or -1 while its span is not stored. */
export function positionOfAskedCall(outline: TraceOutline, layout: TraceLayout, approvalId: string): number {
  for (const [index, id] of Object.entries(outline.rows.asked)) {
    if (id === approvalId) return layout.position(outline.rows.id[Number(index)]!);
  }
  return -1;
}
