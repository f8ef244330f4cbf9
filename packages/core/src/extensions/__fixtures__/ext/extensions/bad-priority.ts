import type { ExtensionApi } from '@goondan/core';

/** Test extension: a middleware registered with a priority that is not a finite number (config.priority, else 'high'). */
export function register(api: ExtensionApi): void {
  api.pipeline.register('toolCall', async (ctx) => ctx.next(), {
    priority: (api.config.priority ?? 'high') as unknown as number,
  });
}
