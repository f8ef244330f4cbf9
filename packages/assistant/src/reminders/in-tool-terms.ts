import { GoondanError } from '@goondan/core/errors';
import { describeAt } from './schedule-for-agent.ts';

/** The field of a tool call that gave the time, for the scheduler's errors. */
export interface ToolTimeField {
  /** As the tool names it: `fire_date`, `due_date`, `seconds`. */
  field: string;
  value: string | number;
  /** The zone the time was read in, to show a past time the way the tool echoes times. */
  timeZone: string;
  /** What to give instead, in the tool's own fields. */
  suggestion: string;
}

/** `at 2026-01-10T07:59:00.000Z is 60 s in the past …`: the instant the scheduler refused. */
const refusedInstant = /^at (\d{4}-\d{2}-\d{2}T\S+Z) is/;

function translated(error: unknown, time: ToolTimeField): unknown {
  if (!(error instanceof GoondanError)) return error;
  const given = `${time.field} ${JSON.stringify(time.value)}`;
  if (error.code === 'E_SCHEDULE_IN_PAST') {
    const at = refusedInstant.exec(error.message)?.[1];
    const now = describeAt(Date.now(), time.timeZone);
    const message = at
      ? `${given} is ${describeAt(Date.parse(at), time.timeZone)}, which has passed (now ${now}).`
      : `${given} has no time after now (${now}).`;
    return new GoondanError('E_SCHEDULE_IN_PAST', message, { suggestion: time.suggestion, cause: error });
  }
  if (error.code === 'E_SCHEDULE_INVALID')
    return new GoondanError('E_SCHEDULE_INVALID', `${given} cannot be scheduled (scheduler: ${error.message})`, {
      suggestion: time.suggestion,
      cause: error,
    });
  return error;
}

/**
 * Runs `work` (a call that adds a schedule) and gives the scheduler's E_SCHEDULE_IN_PAST and E_SCHEDULE_INVALID
 * back in the tool's own terms: the scheduler speaks of `at`, `in`, `rrule` and `cron` and suggests `--in`, which a
 * model calling alarms__set or reminders__create cannot use. Sync work stays sync.
 */
export function inToolTerms<T>(time: ToolTimeField, work: () => T): T {
  try {
    const result = work();
    if (result instanceof Promise)
      return result.catch((error: unknown) => {
        throw translated(error, time);
      }) as T;
    return result;
  } catch (error) {
    throw translated(error, time);
  }
}
