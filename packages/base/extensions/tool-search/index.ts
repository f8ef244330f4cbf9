/**
 * Extension tool-search: `tools__search {query, limit?, enable?}` ranks the tools this agent can reach (name,
 * description, parameter names and descriptions; minisearch with prefix and fuzzy matching, names weigh most).
 *
 * What is searched: the step's catalog as it arrives, before tool-exposure filters it (this extension watches it
 * from a step middleware at priority -1000), so tools the agent cannot reach (Tools of the bundle it does not list
 * in spec.tools) are never offered. Before the first step it searches the whole registry.
 *
 * With tool-exposure loaded, `enable: true` enables the hits: the output carries `enableTools`, which
 * tool-exposure's toolCall middleware applies and replaces with its `exposure` report (see
 * ../tool-exposure/enable-requests.ts). Without tool-exposure every tool in the catalog is already exposed.
 *
 * config: { defaultLimit: 10 }  (1..50)
 */
import type { ExtensionApi, JsonObject, ToolCatalogItem } from '@goondan/core';
import { ENABLE_REQUEST_KEY } from '../tool-exposure/enable-requests.ts';
import { isControlTool } from '../tool-exposure/expose-catalog.ts';
import { ToolIndex } from './tool-index.ts';

export const MAX_SEARCH_LIMIT = 50;
/** Outermost, so it sees the catalog before any filtering step middleware (tool-exposure runs at -100). */
export const SEARCH_OBSERVE_PRIORITY = -1000;

function defaultLimitOf(config: Readonly<JsonObject>): number {
  const value = config.defaultLimit ?? 10;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_SEARCH_LIMIT) {
    throw new Error(`config.defaultLimit must be an integer from 1 to ${MAX_SEARCH_LIMIT}.`);
  }
  return value;
}

export function register(api: ExtensionApi): void {
  const defaultLimit = defaultLimitOf(api.config);
  const index = new ToolIndex(isControlTool);
  let reachable: readonly ToolCatalogItem[] | undefined;

  api.pipeline.register(
    'step',
    async (ctx) => {
      reachable = ctx.toolCatalog;
      return ctx.next();
    },
    { priority: SEARCH_OBSERVE_PRIORITY },
  );

  api.tools.register(
    {
      name: 'tools__search',
      description:
        'Search every tool you can use, including on-demand tools not in your list yet, by what it does. Returns ' +
        'the best matches with their parameters; with enable: true they are enabled for your next step.',
      parameters: {
        type: 'object',
        properties: {
          query: { type: 'string', minLength: 1, maxLength: 500, description: 'Words describing the tool you need.' },
          limit: {
            type: 'integer',
            minimum: 1,
            maximum: MAX_SEARCH_LIMIT,
            description: `How many hits to return (default ${defaultLimit}).`,
          },
          enable: {
            type: 'boolean',
            description: 'Enable the hits so they are in your tool list from your next step (default false).',
          },
        },
        required: ['query'],
        additionalProperties: false,
      },
    },
    (_ctx, input: { query: string; limit?: number; enable?: boolean }) => {
      const registry = api.tools.list();
      index.sync(reachable ?? registry);
      const hits = index.query(input.query, input.limit ?? defaultLimit);
      const output: JsonObject = { query: input.query, searched: index.size, hits: hits as unknown as JsonObject[] };
      if (input.enable && hits.length > 0) {
        if (registry.some((item) => item.name === 'tools__enable'))
          output[ENABLE_REQUEST_KEY] = hits.map((hit) => hit.name);
        else output.note = 'Nothing to enable: without the tool-exposure extension every tool listed is already yours.';
      }
      return output;
    },
    { category: 'safe' },
  );
}
