import { renameSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolContext } from '@goondan/core';

export const handlers = {
  /**
   * Leaves `.slow-started` (holding this process's pid) in the workdir once running, so tests can tell without
   * reading the process output. Written beside it and renamed: a test that sees the file sees the pid in it.
   */
  wait: async (ctx: ToolContext, input: { ms: number }) => {
    const marker = join(ctx.workdir, '.slow-started');
    await Bun.write(`${marker}.tmp`, String(process.pid));
    renameSync(`${marker}.tmp`, marker);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve({ waited: input.ms }), input.ms);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(new Error('wait was cancelled'));
      });
    });
  },
};
