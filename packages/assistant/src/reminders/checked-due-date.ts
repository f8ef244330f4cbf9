import { GoondanError } from '@goondan/core/errors';
import { epochOfWallClock, wallClockOf } from '../when/zoned-time.ts';
import { describeAt } from './schedule-for-agent.ts';

/** How far ahead a reminder's due_date or an alarm's fire_date may be: 100 years (a timer's delay: 366 days). */
export const MAX_DUE_YEARS = 100;

/**
 * `epochMs` if it is at most MAX_DUE_YEARS after `now` (the same wall-clock time in `timeZone`), else E_WHEN_INVALID
 * naming the field, what the words were read as and the latest time taken. The scheduler would take dates up to the
 * year 275760 and `parseWhen` up to 9999; a wake-up that far ahead is a typo or a runaway number.
 */
export function checkedDueDate(
  epochMs: number,
  now: number,
  time: { field: string; value: string; timeZone: string },
): number {
  const wall = wallClockOf(now, time.timeZone);
  const latest = epochOfWallClock({ ...wall, year: wall.year + MAX_DUE_YEARS }, time.timeZone);
  if (epochMs <= latest) return epochMs;
  throw new GoondanError(
    'E_WHEN_INVALID',
    `${time.field} ${JSON.stringify(time.value)} is ${describeAt(epochMs, time.timeZone)}, more than ${MAX_DUE_YEARS} years ahead; the latest ${time.field} is ${describeAt(latest, time.timeZone)}.`,
    { suggestion: `Give a ${time.field} within ${MAX_DUE_YEARS} years, e.g. "in 20 minutes", "next March 3 at 9am".` },
  );
}
