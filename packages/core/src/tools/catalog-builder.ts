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

  /** A fresh, mutable array for step middleware (`ctx.toolCatalog`). */
  initialItems(): ToolCatalogItem[] {
    return this.current().items.slice();
  }

  /** Freezes what step middleware left; the execution guard uses the result. */
  finalize(items: readonly ToolCatalogItem[]): ToolCatalog {
    return new ToolCatalog(items, this.current().catalog);
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
