import { join } from 'node:path';
import type { ToolContext } from '@goondan/core';

export const handlers = {
  /** Leaves `.slow-started` in the workdir once running, so tests can tell without reading the process output. */
  wait: async (ctx: ToolContext, input: { ms: number }) => {
    await Bun.write(join(ctx.workdir, '.slow-started'), String(process.pid));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve({ waited: input.ms }), input.ms);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(new Error('wait was cancelled'));
      });
    });
  },
};
