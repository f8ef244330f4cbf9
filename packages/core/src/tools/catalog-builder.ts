import { describeValue } from '../pipeline/middleware-results.ts';
import type { ToolCatalogItem } from '../types.ts';
import { ToolCatalog } from './tool-catalog.ts';
import type { ToolRegistry } from './tool-registry.ts';

/**
 * Builds an agent's catalog each Step (spec §2.1.1–2): the exports of the Tool resources named in the Agent's
 * spec.tools, in declaration order, then tools registered by extensions and MCP (spec §12.3), in registration
 * order. The stable part comes first so provider prompt caches keep hitting. Recomputed only when the registry
 * changes; a Step costs one array copy.
 */
export class CatalogBuilder {
  private cached: { version: number; items: readonly ToolCatalogItem[]; catalog: ToolCatalog } | undefined;

  constructor(
    private readonly registry: ToolRegistry,
    private readonly declaredToolResources: readonly string[],
  ) {}

  /**
   * A fresh array of fresh items for step middleware (`ctx.toolCatalog`), each a top-level copy of the registry's
   * frozen item: a middleware may set any field of one in place (or replace `parameters`) for this step only.
   */
  initialItems(): ToolCatalogItem[] {
    const { items } = this.current();
    const copies = new Array<ToolCatalogItem>(items.length);
    for (let index = 0; index < items.length; index += 1) {
      const item = items[index]!;
      copies[index] = {
        name: item.name,
        description: item.description,
        parameters: item.parameters,
        source: item.source,
      };
    }
    return copies;
  }

  /**
   * What step middleware left, as the step's catalog (the model sees it, the execution guard checks it). An item
   * that still matches its registry item becomes that item again (so per-item caches such as the model-tool
   * conversion keep hitting); any other becomes a snapshot, so later edits to it cannot reach this catalog.
   */
  finalize(items: readonly ToolCatalogItem[]): ToolCatalog {
    if (!Array.isArray(items)) throw new TypeError(notACatalog(`is ${describeValue(items)}, not an array`));
    const { catalog, items: registry } = this.current();
    const settled = new Array<ToolCatalogItem>(items.length);
    for (let index = 0; index < items.length; index += 1) {
      const item = items[index]!;
      if (typeof item?.name !== 'string' || item.name === '')
        throw new TypeError(notACatalog(`has ${describeValue(item)} at ${index}, which has no name`));
      // Usually the item sits where initialItems put it; the name index is for reordered or filtered arrays.
      const atIndex = registry[index];
      const registered = atIndex !== undefined && atIndex.name === item.name ? atIndex : catalog.get(item.name);
      const same = registered !== undefined && sameFields(item, registered);
      // A registry item marked deferred (tool exposure's deferred mode) keeps one marked copy, for the same reason.
      settled[index] = same && item.deferred === true ? deferredOf(registered) : same ? registered : snapshot(item);
    }
    return new ToolCatalog(settled, catalog);
  }

  /** The catalog with no step middleware in between. */
  build(): ToolCatalog {
    return this.current().catalog;
  }

  private current() {
    if (this.cached?.version === this.registry.version) return this.cached;
    const byResource = new Map<string, ToolCatalogItem[]>();
    const dynamic: ToolCatalogItem[] = [];
    for (const tool of this.registry.list()) {
      const source = tool.item.source;
      if (source?.type === 'config') {
        const list = byResource.get(source.name) ?? [];
        list.push(tool.item);
        byResource.set(source.name, list);
      } else {
        dynamic.push(tool.item);
      }
    }
    const items: ToolCatalogItem[] = [];
    for (const resourceName of new Set(this.declaredToolResources)) items.push(...(byResource.get(resourceName) ?? []));
    items.push(...dynamic);
    this.cached = { version: this.registry.version, items, catalog: new ToolCatalog(items) };
    return this.cached;
  }
}

function sameFields(item: ToolCatalogItem, registered: ToolCatalogItem): boolean {
  return (
    item === registered ||
    (item.description === registered.description &&
      item.parameters === registered.parameters &&
      item.source === registered.source)
  );
}

function snapshot(item: ToolCatalogItem): ToolCatalogItem {
  const copy: ToolCatalogItem = {
    name: item.name,
    description: item.description,
    parameters: item.parameters,
    source: item.source,
  };
  if (item.deferred === true) copy.deferred = true;
  return copy;
}

const deferredCopies = new WeakMap<ToolCatalogItem, ToolCatalogItem>();
function deferredOf(registered: ToolCatalogItem): ToolCatalogItem {
  let copy = deferredCopies.get(registered);
  if (!copy) {
    copy = { ...snapshot(registered), deferred: true };
    deferredCopies.set(registered, copy);
  }
  return copy;
}

/** A catalog a step middleware broke (spec §2.1.3: it may change `ctx.toolCatalog`), said plainly. */
function notACatalog(what: string): string {
  return `The step's tool catalog ${what}: ctx.toolCatalog is an array of tool catalog items ({ name, description, parameters }); check the step middleware that set or changed it.`;
}
