import type { ToolCatalogItem } from '../types.ts';

/**
 * The tools the model sees in one Step (spec §3), with O(1) membership for the execution-time guard (spec §9.1).
 * Built from a copy of the (possibly middleware-edited) array, so later edits to that array cannot make the guard
 * and the model request disagree. (Not Object.freeze: freezing 10,000 items costs milliseconds per Step in Bun.)
 */
export class ToolCatalog {
  readonly items: readonly ToolCatalogItem[];
  /** Tools left out of this catalog because the permissions deny them (a call to one is told so). */
  readonly denied: ReadonlySet<string>;
  private readonly byName: Map<string, ToolCatalogItem>;

  constructor(items: readonly ToolCatalogItem[], reuse?: ToolCatalog, denied: ReadonlySet<string> = noNames) {
    this.items = items.slice();
    this.denied = denied;
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

  /**
   * The catalog without the tools the permissions deny (remembered in `denied`, with `alsoDenied`: denied tools
   * taken out before, so a call to one is still told it is denied).
   */
  withoutDenied(isDenied: (item: ToolCatalogItem) => boolean, alsoDenied: Iterable<string> = []): ToolCatalog {
    const denied = new Set([...this.denied, ...alsoDenied]);
    const kept = this.items.filter((item) => {
      if (!isDenied(item)) return true;
      denied.add(item.name);
      return false;
    });
    return new ToolCatalog(kept, undefined, denied);
  }

  names(): string[] {
    return this.items.map((item) => item.name);
  }
}

const noNames: ReadonlySet<string> = new Set();

function sameItems(left: readonly ToolCatalogItem[], right: readonly ToolCatalogItem[]): boolean {
  if (left.length !== right.length) return false;
  for (let index = 0; index < left.length; index += 1) if (left[index] !== right[index]) return false;
  return true;
}
