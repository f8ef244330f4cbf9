// Handlers import only types from @goondan/core: the bundle is copied to a temp dir with no node_modules.
import type { ToolContext } from '@goondan/core';

export const handlers = {
  add: (_ctx: ToolContext, input: { a: number; b: number }) => ({ sum: input.a + input.b }),
  boom: (_ctx: ToolContext, input: { reason?: string }) => {
    throw new Error(`kaboom: ${input.reason ?? 'no reason given'}`);
  },
  later: (ctx: ToolContext, input: { value: string }) =>
    ctx.jobs.submit(async () => {
      await Bun.sleep(50);
      return { echoed: input.value, finished: true };
    }),
};
