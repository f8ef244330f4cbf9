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
    tools[item.name] = tool({
      ...(item.description === undefined ? {} : { description: item.description }),
      inputSchema: jsonSchema(item.parameters ?? emptyObjectSchema),
    });
  }
  return tools;
}
