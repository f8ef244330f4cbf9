import { join } from 'node:path';
import type { ToolHandlers } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';
import type { ToolInputs } from '../../goondan-tools';

// Inputs are typed from the parameters in goondan.yaml: `gdn types` writes goondan-tools.d.ts (docs/writing-a-tool.md).
export const handlers: ToolHandlers<ToolInputs['greet']> = {
  hello: (_ctx, input) => {
    const greeting = `Hello, ${input.name}!`;
    return { greeting: input.loud ? greeting.toUpperCase() : greeting };
  },
  'count-words': async (ctx, input) => {
    if (input.path.includes('..') || input.path.startsWith('/')) {
      throw new GoondanError('E_PATH_OUTSIDE_WORKDIR', `Path '${input.path}' leaves the workdir.`);
    }
    const file = Bun.file(join(ctx.workdir, input.path));
    if (!(await file.exists())) throw new GoondanError('E_FILE_NOT_FOUND', `No file '${input.path}' in the workdir.`);
    const text = await file.text();
    return { path: input.path, words: text.split(/\s+/).filter(Boolean).length };
  },
};
