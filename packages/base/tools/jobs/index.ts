import type { ToolContext, ToolHandler } from '@goondan/core';

/**
 * Polling for pending results (spec §10.2; decision 5 in the spec README): a tool that answered `pending` gave the
 * model a handle; this reads the job's state. Completion also arrives on its own as an event in the conversation.
 */
export const handlers: Record<string, ToolHandler> = {
  poll: (ctx: ToolContext, input: { handle: string }) => ctx.jobs.poll(input.handle),
};
