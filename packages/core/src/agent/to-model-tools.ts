import { jsonSchema, type ToolSet, tool } from 'ai';
import type { ToolCatalogItem } from '../types.ts';

const emptyObjectSchema = { type: 'object' as const, properties: {} };

/**
 * The catalog as AI SDK tools, names, descriptions and JSON Schemas passed unchanged. No `execute` and no
 * `validate`: the SDK hands every call back, and our executor (guard, validation, middleware) decides.
 */
export function toModelTools(items: readonly ToolCatalogItem[]): ToolSet {
  const tools: ToolSet = {};
  for (const item of items) {
    let converted = cache.get(item);
    if (!converted) {
      converted = tool({
        ...(item.description === undefined ? {} : { description: item.description }),
        inputSchema: jsonSchema(item.parameters ?? emptyObjectSchema),
      });
      cache.set(item, converted);
    }
    tools[item.name] = converted;
  }
  return tools;
}

/** Catalog items are reused from step to step; converting each once keeps a Step cheap with large catalogs. */
const cache = new WeakMap<ToolCatalogItem, ToolSet[string]>();
