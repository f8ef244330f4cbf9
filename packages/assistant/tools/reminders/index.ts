/** reminders__create/list/complete (src/reminders/): reminders with an open/done state; a due date wakes the agent. */
import type { ToolContext } from '@goondan/core';
import { completeReminder, createReminder, listReminders } from '../../src/reminders/reminders.ts';

export const handlers = {
  create: (ctx: ToolContext, input: Parameters<typeof createReminder>[1]) => createReminder(ctx, input),
  list: (ctx: ToolContext, input: Parameters<typeof listReminders>[1]) => listReminders(ctx, input),
  complete: (ctx: ToolContext, input: Parameters<typeof completeReminder>[1]) => completeReminder(ctx, input),
};
