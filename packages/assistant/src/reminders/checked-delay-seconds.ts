import { GoondanError } from '@goondan/core/errors';

/** The longest delay of a timer or an alarm: 366 days (31,622,400 s); further ahead, an alarm takes a fire_date. */
export const MAX_DELAY_SECONDS = 366 * 86_400;

/**
 * A delay in seconds from 1 to MAX_DELAY_SECONDS, or E_TOOL_INVALID_ARGS naming the tool's field. Less than a
 * second has passed before the schedule is written; more would reach dates a delay is not the way to say.
 */
export function checkedDelaySeconds(value: unknown, field: string, suggestion: string): number {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 1 && value <= MAX_DELAY_SECONDS) return value;
  throw new GoondanError(
    'E_TOOL_INVALID_ARGS',
    `${field} must be from 1 to ${MAX_DELAY_SECONDS.toLocaleString('en-US')} seconds (366 days), got ${typeof value === 'number' ? String(value) : JSON.stringify(value)}.`,
    { suggestion },
  );
}
