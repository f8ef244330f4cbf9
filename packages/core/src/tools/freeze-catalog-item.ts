import { GoondanError } from '../errors/goondan-error.ts';
import type { ToolCatalogItem } from '../types.ts';

/**
 * The registry's own copy of an item: the caller's objects are cloned, then frozen all the way down, so nothing
 * that holds an item (an extension, a step's middleware, `api.tools.list()`) can change what later steps show.
 * Done once per registration; steps copy only the top level (CatalogBuilder.initialItems).
 */
export function freezeCatalogItem(item: ToolCatalogItem): ToolCatalogItem {
  const copy: ToolCatalogItem = { name: item.name };
  if (item.description !== undefined) copy.description = item.description;
  if (item.parameters !== undefined) copy.parameters = deepFreeze(cloneSchema(item));
  if (item.source !== undefined) copy.source = Object.freeze({ ...item.source });
  return Object.freeze(copy);
}

function cloneSchema(item: ToolCatalogItem): NonNullable<ToolCatalogItem['parameters']> {
  try {
    return structuredClone(item.parameters)!;
  } catch (thrown) {
    throw new GoondanError(
      'E_SCHEMA_INVALID',
      `Parameters schema of ${item.name} is not plain JSON: ${(thrown as Error)?.message ?? String(thrown)}`,
    );
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return Object.freeze(value);
}
