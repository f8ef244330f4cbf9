/**
 * alarms__set/list/cancel (src/reminders/clocks.ts): one-shot or recurring schedules that wake the agent. The label
 * and delay_seconds are checked and the scheduler's errors are given back in this tool's fields here.
 */
import type { ToolContext } from '@goondan/core';
import { displayName } from '../../src/names/display-name.ts';
import { checkedDelaySeconds } from '../../src/reminders/checked-delay-seconds.ts';
import { cancelClock, listClocks, setAlarm } from '../../src/reminders/clocks.ts';
import { inToolTerms } from '../../src/reminders/in-tool-terms.ts';
import { zoneOf } from '../../src/reminders/schedule-for-agent.ts';

const delaySuggestion =
  'Give delay_seconds from 1 to 31622400 (366 days), e.g. 600 for ten minutes; for a later or repeating time give fire_date instead ("next March 3 at 9am", "every monday at 7").';
const fireDateSuggestion =
  'Give a fire_date in the future: words ("tomorrow at 7am", "내일 오전 7시", "in 20 minutes") or ISO 8601 with its offset (check the offset), or delay_seconds instead (e.g. 600 for ten minutes).';

export const handlers = {
  set: (ctx: ToolContext, input: Parameters<typeof setAlarm>[1]) => {
    const label = displayName(input.label, 'label');
    const timeZone = zoneOf(ctx, input.timeZone);
    if (input.delay_seconds === undefined || input.fire_date !== undefined)
      return inToolTerms(
        { field: 'fire_date', value: String(input.fire_date), timeZone, suggestion: fireDateSuggestion },
        () => setAlarm(ctx, { ...input, label }),
      );
    const delay = checkedDelaySeconds(input.delay_seconds, 'delay_seconds', delaySuggestion);
    return inToolTerms({ field: 'delay_seconds', value: delay, timeZone, suggestion: delaySuggestion }, () =>
      setAlarm(ctx, { ...input, label, delay_seconds: delay }),
    );
  },
  list: (ctx: ToolContext, input: { timeZone?: string }) => listClocks(ctx, 'alarm', input.timeZone),
  cancel: (ctx: ToolContext, input: { label: string }) => cancelClock(ctx, 'alarm', displayName(input.label, 'label')),
};
