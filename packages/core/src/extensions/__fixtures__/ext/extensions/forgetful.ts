import type { ExtensionApi } from '@goondan/core';

/** Test extension: a middleware of the configured kind that runs the rest of the chain and forgets to return it. */
export function register(api: ExtensionApi): void {
  const kind = api.config.forget as 'turn' | 'step' | 'toolCall';
  const forgetful = async (ctx: { next(): Promise<unknown> }) => {
    await ctx.next();
  };
  api.pipeline.register(kind, forgetful as never);
}
