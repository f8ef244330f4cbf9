import type { ToolContext } from '@goondan/core';

export const handlers = {
  add: (_ctx: ToolContext, input: { a: number; b: number }) => ({ sum: input.a + input.b }),
  slow: (ctx: ToolContext, input: { ms: number }) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve({ waited: input.ms }), input.ms);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(new Error('aborted'));
      });
    }),
  whoami: (ctx: ToolContext) => ({
    agentName: ctx.agentName,
    instanceKey: ctx.instanceKey,
    turnId: ctx.turnId,
    toolCallId: ctx.toolCallId,
    workdir: ctx.workdir,
    messageRole: ctx.message.data.role,
    messageId: ctx.message.id,
  }),
  later: (ctx: ToolContext) => ctx.jobs.submit(async () => ({ finished: true })),
};
