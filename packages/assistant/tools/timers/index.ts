/**
 * timers__set/list/cancel (src/reminders/clocks.ts): a delay that wakes the agent once. The label is checked and
 * the scheduler's errors are given back in this tool's fields here.
 */
import type { ToolContext } from '@goondan/core';
import { displayName } from '../../src/names/display-name.ts';
import { checkedDelaySeconds } from '../../src/reminders/checked-delay-seconds.ts';
import { cancelClock, listClocks, setTimer } from '../../src/reminders/clocks.ts';
import { inToolTerms } from '../../src/reminders/in-tool-terms.ts';
import { zoneOf } from '../../src/reminders/schedule-for-agent.ts';

const suggestion =
  'Give seconds from 1 to 31622400 (366 days), e.g. 300 for five minutes; for a date and time use alarms__set.';

export const handlers = {
  set: (ctx: ToolContext, input: Parameters<typeof setTimer>[1]) => {
    const label = displayName(input.label, 'label');
    const seconds = checkedDelaySeconds(input.seconds, 'seconds', suggestion);
    const time = { field: 'seconds', value: seconds, timeZone: zoneOf(ctx, input.timeZone), suggestion };
    return inToolTerms(time, () => setTimer(ctx, { ...input, label, seconds }));
  },
  list: (ctx: ToolContext, input: { timeZone?: string }) => listClocks(ctx, 'timer', input.timeZone),
  cancel: (ctx: ToolContext, input: { label: string }) => cancelClock(ctx, 'timer', displayName(input.label, 'label')),
};
