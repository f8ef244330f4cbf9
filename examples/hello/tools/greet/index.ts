import { join } from 'node:path';
import { GoondanError, type ToolContext, type ToolHandler } from '@goondan/core';

export const handlers: Record<string, ToolHandler> = {
  hello: (_ctx: ToolContext, input: { name: string; loud?: boolean }) => {
    const greeting = `Hello, ${input.name}!`;
    return { greeting: input.loud ? greeting.toUpperCase() : greeting };
  },
  'count-words': async (ctx: ToolContext, input: { path: string }) => {
    if (input.path.includes('..') || input.path.startsWith('/')) {
      throw new GoondanError('E_PATH_OUTSIDE_WORKDIR', `Path '${input.path}' leaves the workdir.`);
    }
    const file = Bun.file(join(ctx.workdir, input.path));
    if (!(await file.exists())) throw new GoondanError('E_FILE_NOT_FOUND', `No file '${input.path}' in the workdir.`);
    const text = await file.text();
    return { path: input.path, words: text.split(/\s+/).filter(Boolean).length };
  },
};
