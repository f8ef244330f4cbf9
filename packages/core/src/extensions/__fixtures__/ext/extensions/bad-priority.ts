import type { ExtensionApi } from '@goondan/core';

/** Test extension: a middleware registered with a priority that is not a number. */
export function register(api: ExtensionApi): void {
  api.pipeline.register('toolCall', async (ctx) => ctx.next(), { priority: 'high' as unknown as number });
}
