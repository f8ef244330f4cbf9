import type { ToolSet } from 'ai';
import { aiSdk } from '../models/ai-sdk.ts';
import type { ToolCatalogItem } from '../types.ts';

const emptyObjectSchema = { type: 'object' as const, properties: {} };

/** The key of Anthropic's tool-search tool in the tool set (its wire name is `tool_search_tool_bm25`). */
export const PROVIDER_TOOL_SEARCH_NAME = 'tool_search_tool_bm25';

/** True when the model's provider loads `deferred` tools on demand: Anthropic (defer_loading + tool search). */
export function supportsDeferredTools(provider: string): boolean {
  return provider === 'anthropic' || provider.startsWith('anthropic.');
}

/**
 * The catalog as AI SDK tools, names, descriptions and JSON Schemas passed unchanged. No `execute` and no
 * `validate`: the SDK hands every call back, and our executor (guard, validation, middleware) decides.
 *
 * With `deferred: true` (the model supports deferred loading) and at least one item marked `deferred`, those
 * items are sent with `providerOptions.anthropic.deferLoading` and Anthropic's BM25 tool-search tool comes first,
 * so every tool is in every request and the model loads the ones it needs by searching. Otherwise the flag is
 * ignored.
 */
export async function toModelTools(
  items: readonly ToolCatalogItem[],
  options: { deferred?: boolean } = {},
): Promise<ToolSet> {
  const tools: ToolSet = {};
  const { jsonSchema, tool } = aiSdk();
  const deferring = options.deferred === true && items.some((item) => item.deferred === true);
  if (deferring) tools[PROVIDER_TOOL_SEARCH_NAME] = await providerToolSearch();
  for (const item of items) {
    const defer = deferring && item.deferred === true;
    const cache = defer ? deferredCache : plainCache;
    let converted = cache.get(item);
    if (!converted) {
      converted = tool({
        ...(item.description === undefined ? {} : { description: item.description }),
        inputSchema: jsonSchema(item.parameters ?? emptyObjectSchema),
        ...(defer ? { providerOptions: { anthropic: { deferLoading: true } } } : {}),
      });
      cache.set(item, converted);
    }
    tools[item.name] = converted;
  }
  return tools;
}

let toolSearch: ToolSet[string] | undefined;

/** Anthropic's tool-search tool, imported when a step first defers tools (only Anthropic models do), not at start. */
async function providerToolSearch(): Promise<ToolSet[string]> {
  toolSearch ??= (await import('@ai-sdk/anthropic')).anthropic.tools.toolSearchBm25_20251119();
  return toolSearch;
}

/** Catalog items are reused from step to step; converting each once keeps a Step cheap with large catalogs. */
const plainCache = new WeakMap<ToolCatalogItem, ToolSet[string]>();
const deferredCache = new WeakMap<ToolCatalogItem, ToolSet[string]>();
