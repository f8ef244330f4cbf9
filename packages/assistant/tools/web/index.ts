/** web__search (docs/assistant-pack-2.md#web-search): one query to the provider of the Tool's config. */
import type { ToolContext } from '@goondan/core';
import { webSearch } from '../../src/web-search/web-search.ts';

export const handlers = {
  search: (ctx: ToolContext, input: { query: string; count?: number }) =>
    webSearch({ config: ctx.config, query: input.query, count: input.count, signal: ctx.signal }),
};
