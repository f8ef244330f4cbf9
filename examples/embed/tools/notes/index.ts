import { join } from 'node:path';
import type { ToolHandlers } from '@goondan/core';
import type { ToolInputs } from '../../goondan-tools';

export const handlers: ToolHandlers<ToolInputs['notes']> = {
  save: async (ctx, input) => {
    const file = join(ctx.workdir, `${input.title}.txt`);
    await Bun.write(file, `${input.text}\n`);
    return { saved: `${input.title}.txt`, characters: input.text.length };
  },
};
