/**
 * reminders__create/list/complete (src/reminders/): reminders with an open/done state; a due date wakes the agent.
 * Titles and list names are checked, and the scheduler's errors are given back in this tool's fields, here.
 */
import type { ToolContext } from '@goondan/core';
import { displayName } from '../../src/names/display-name.ts';
import { inToolTerms } from '../../src/reminders/in-tool-terms.ts';
import { completeReminder, createReminder, listReminders } from '../../src/reminders/reminders.ts';
import { zoneOf } from '../../src/reminders/schedule-for-agent.ts';

const dueDateSuggestion =
  'Give a due_date in the future: words ("in 20 minutes", "tomorrow at 9", "내일 오후 3시") or ISO 8601 with its offset (check the offset), or leave due_date out to keep the reminder on its list without waking you.';

export const handlers = {
  create: (ctx: ToolContext, input: Parameters<typeof createReminder>[1]) => {
    const title = displayName(input.title, 'title');
    const list_name = input.list_name === undefined ? undefined : displayName(input.list_name, 'list_name');
    const time = {
      field: 'due_date',
      value: String(input.due_date),
      timeZone: zoneOf(ctx, input.timeZone),
      suggestion: dueDateSuggestion,
    };
    return inToolTerms(time, () => createReminder(ctx, { ...input, title, list_name }));
  },
  list: (ctx: ToolContext, input: Parameters<typeof listReminders>[1]) => listReminders(ctx, input),
  complete: (ctx: ToolContext, input: Parameters<typeof completeReminder>[1]) =>
    completeReminder(ctx, { ...input, title: displayName(input.title, 'title') }),
};
