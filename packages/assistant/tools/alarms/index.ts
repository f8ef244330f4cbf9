/** alarms__set/list/cancel (src/reminders/clocks.ts): one-shot or recurring schedules that wake the agent. */
import type { ToolContext } from '@goondan/core';
import { cancelClock, listClocks, setAlarm } from '../../src/reminders/clocks.ts';

export const handlers = {
  set: (ctx: ToolContext, input: Parameters<typeof setAlarm>[1]) => setAlarm(ctx, input),
  list: (ctx: ToolContext, input: { timeZone?: string }) => listClocks(ctx, 'alarm', input.timeZone),
  cancel: (ctx: ToolContext, input: { label: string }) => cancelClock(ctx, 'alarm', input.label),
};
