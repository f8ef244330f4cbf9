/** timers__set/list/cancel (src/reminders/clocks.ts): a delay that wakes the agent once. */
import type { ToolContext } from '@goondan/core';
import { cancelClock, listClocks, setTimer } from '../../src/reminders/clocks.ts';

export const handlers = {
  set: (ctx: ToolContext, input: Parameters<typeof setTimer>[1]) => setTimer(ctx, input),
  list: (ctx: ToolContext, input: { timeZone?: string }) => listClocks(ctx, 'timer', input.timeZone),
  cancel: (ctx: ToolContext, input: { label: string }) => cancelClock(ctx, 'timer', input.label),
};
