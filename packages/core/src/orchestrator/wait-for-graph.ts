/**
 * Who waits on whom: an edge caller → callee for every outstanding blocking request between agent instances.
 * One Turn runs at a time per instance, so a request that would close a cycle (A waits on B waits on A) can never
 * be answered; `pathBack` finds that cycle before the request is sent, so it fails at once instead of hanging.
 */
export class WaitForGraph {
  private readonly edges = new Map<string, Map<string, number>>();

  add(from: string, to: string): void {
    const targets = this.edges.get(from) ?? new Map<string, number>();
    targets.set(to, (targets.get(to) ?? 0) + 1);
    this.edges.set(from, targets);
  }

  remove(from: string, to: string): void {
    const targets = this.edges.get(from);
    const count = targets?.get(to);
    if (!targets || count === undefined) return;
    if (count > 1) targets.set(to, count - 1);
    else targets.delete(to);
    if (targets.size === 0) this.edges.delete(from);
  }

  /**
   * The cycle a new edge `from → to` would close, as the list of nodes `[from, to, …, from]`, or null when it
   * closes none. Depth-first search from `to` looking for `from`.
   */
  cycleThrough(from: string, to: string): string[] | null {
    if (from === to) return [from, to];
    // The usual case: the callee waits on nobody.
    if (!this.edges.has(to)) return null;
    const previous = new Map<string, string>([[to, to]]);
    const stack = [to];
    while (stack.length > 0) {
      const node = stack.pop()!;
      for (const next of this.edges.get(node)?.keys() ?? []) {
        if (previous.has(next)) continue;
        previous.set(next, node);
        if (next === from) {
          const chain = [node];
          while (chain[0] !== to) chain.unshift(previous.get(chain[0]!)!);
          return [from, ...chain, from];
        }
        stack.push(next);
      }
    }
    return null;
  }

  get size(): number {
    let count = 0;
    for (const targets of this.edges.values()) for (const value of targets.values()) count += value;
    return count;
  }
}
