import type { ToolCatalogItem } from '../types.ts';

/**
 * The tools the model sees in one Step (spec §3), with O(1) membership for the execution-time guard (spec §9.1).
 * Built from a copy of the (possibly middleware-edited) array, so later edits to that array cannot make the guard
 * and the model request disagree. (Not Object.freeze: freezing 10,000 items costs milliseconds per Step in Bun.)
 */
export class ToolCatalog {
  readonly items: readonly ToolCatalogItem[];
  private readonly byName: Map<string, ToolCatalogItem>;

  constructor(items: readonly ToolCatalogItem[], reuse?: ToolCatalog) {
    this.items = items.slice();
    // The common case is an unedited catalog: reuse the previous index when every entry is the same object.
    if (reuse && sameItems(reuse.items, this.items)) {
      this.byName = reuse.byName;
      return;
    }
    this.byName = new Map();
    for (const item of this.items) if (!this.byName.has(item.name)) this.byName.set(item.name, item);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  get(name: string): ToolCatalogItem | undefined {
    return this.byName.get(name);
  }

  get size(): number {
    return this.items.length;
  }

  /** A catalog of the items for which `drop` is false. */
  without(drop: (item: ToolCatalogItem) => boolean): ToolCatalog {
    return new ToolCatalog(this.items.filter((item) => !drop(item)));
  }

  names(): string[] {
    return this.items.map((item) => item.name);
  }
}

function sameItems(left: readonly ToolCatalogItem[], right: readonly ToolCatalogItem[]): boolean {
  if (left.length !== right.length) return false;
  for (let index = 0; index < left.length; index += 1) if (left[index] !== right[index]) return false;
  return true;
}
