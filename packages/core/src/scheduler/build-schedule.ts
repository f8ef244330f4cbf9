import { newId } from '../agent/agent-event.ts';
import { instancePaths } from '../agent/instance-paths.ts';
import { closestName } from '../errors/closest-names.ts';
import { GoondanError } from '../errors/goondan-error.ts';
import {
  checkTimeZone,
  clip,
  implicitRruleStart,
  nextOccurrence,
  normalizeRrule,
  parseInstant,
} from './schedule-recurrence.ts';
import type { ScheduleInput, ScheduleKind, ScheduleRecord } from './schedule-types.ts';

const MAX_TEXT = 16_000;
/** The longest time, RRULE (with its EXDATE lists) or cron taken: a real one is far shorter; a megabyte is no rule. */
export const MAX_EXPRESSION = 4_000;

/** The last instant a Date holds (±8.64e15 ms, the year 275760). */
const MAX_DATE_MS = 8.64e15;

/** The instance a schedule that names none fires into (as `gdn schedules add` without `--instance`). */
const DEFAULT_INSTANCE_KEY = 'default';

/**
 * Checks a schedule request and makes the record to store, with its first occurrence. Nothing is written here;
 * every problem is a GoondanError: E_SCHEDULE_INVALID (shape, rule), E_SCHEDULE_IN_PAST, E_SCHEDULE_TIME_ZONE,
 * E_AGENT_UNKNOWN (when `agents` is given and does not hold the target), E_INSTANCE_KEY_INVALID.
 */
export function buildSchedule(options: {
  input: ScheduleInput;
  now: number;
  agents?: readonly string[];
}): ScheduleRecord {
  const { input, now, agents } = options;
  const given = (['at', 'inMs', 'rrule', 'cron'] as const).filter((key) => input[key] !== undefined);
  if (given.length !== 1) {
    throw new GoondanError(
      'E_SCHEDULE_INVALID',
      given.length === 0
        ? 'A schedule needs one of at, in (a delay), rrule or cron.'
        : `A schedule takes one of at, in, rrule or cron; got ${given.join(' and ')}.`,
    );
  }
  const field = given[0]!;
  for (const key of ['at', 'rrule', 'cron', 'timeZone', 'label', 'input'] as const) {
    const value = input[key];
    if (value !== undefined && typeof value !== 'string')
      throw new GoondanError('E_SCHEDULE_INVALID', `${key} must be a string, got ${typeof value}.`);
  }
  if (field !== 'inMs' && (input[field] as string).length > MAX_EXPRESSION)
    throw new GoondanError(
      'E_SCHEDULE_INVALID',
      `${field} is ${(input[field] as string).length} characters long; a schedule's ${field} is limited to ${MAX_EXPRESSION}.`,
    );
  if (typeof input.agent !== 'string' || input.agent === '')
    throw new GoondanError('E_SCHEDULE_INVALID', 'A schedule needs the agent it wakes.');
  if (agents && !agents.includes(input.agent)) {
    const near = closestName(input.agent, agents);
    throw new GoondanError(
      'E_AGENT_UNKNOWN',
      `No agent '${input.agent}' in this bundle${near ? ` (did you mean '${near}'?)` : ''}; agents: ${agents.join(', ') || 'none'}.`,
      // A schedule is added by a person (gdn schedules, gdn serve's API) as often as by an agent: no agents__catalog.
      {
        suggestion:
          "Name one of the agents the message lists, or declare an Agent of that name in the bundle's goondan.yaml first.",
      },
    );
  }
  const instanceKey = input.instanceKey ?? DEFAULT_INSTANCE_KEY;
  if (typeof instanceKey !== 'string') {
    throw new GoondanError('E_INSTANCE_KEY_INVALID', `instanceKey must be a string, got ${typeof instanceKey}.`);
  }
  instancePaths({ rootDir: '.', agentName: input.agent, instanceKey });
  const timeZone = checkTimeZone(input.timeZone ?? 'UTC');
  const missedPolicy = input.missedPolicy ?? 'fire-once-late';
  if (missedPolicy !== 'fire-once-late' && missedPolicy !== 'skip')
    throw new GoondanError(
      'E_SCHEDULE_INVALID',
      `missedPolicy must be 'fire-once-late' or 'skip', got '${missedPolicy}'.`,
    );
  const label = (input.label ?? '').trim();
  const text = (input.input ?? label).trim();
  if (text === '')
    throw new GoondanError('E_SCHEDULE_INVALID', 'A schedule needs an input or a label: the text the agent reads.');
  if (text.length > MAX_TEXT || label.length > MAX_TEXT)
    throw new GoondanError('E_SCHEDULE_INVALID', `A schedule's input and label are limited to ${MAX_TEXT} characters.`);
  let kind: ScheduleKind;
  let expression: string;
  if (input.inMs !== undefined) {
    if (typeof input.inMs !== 'number' || !Number.isFinite(input.inMs) || input.inMs <= 0)
      throw new GoondanError(
        'E_SCHEDULE_INVALID',
        typeof input.inMs === 'number'
          ? `The delay (--in, or inMs in the API) must be positive, got ${input.inMs} ms.`
          : `The delay (inMs) must be a number of milliseconds, got a ${typeof input.inMs}.`,
      );
    if (now + input.inMs > MAX_DATE_MS)
      throw new GoondanError(
        'E_SCHEDULE_INVALID',
        `The delay (--in, or inMs in the API) is too far ahead: ${input.inMs} ms from now is past the last instant a date can hold (the year 275760).`,
      );
    kind = 'at';
    // Up, not to the nearest: a delay under half a millisecond fell on now itself and was refused as used up.
    expression = new Date(now + Math.ceil(input.inMs)).toISOString();
  } else if (input.at !== undefined) {
    kind = 'at';
    const at = parseInstant(input.at, timeZone);
    if (at <= now) {
      throw new GoondanError(
        'E_SCHEDULE_IN_PAST',
        `at ${new Date(at).toISOString()} is ${Math.round((now - at) / 1000)} s in the past (now ${new Date(now).toISOString()}).`,
      );
    }
    expression = new Date(at).toISOString();
  } else if (input.rrule !== undefined) {
    kind = 'rrule';
    expression = normalizeRrule(input.rrule, timeZone, implicitRruleStart(input.rrule, timeZone, now));
  } else {
    kind = 'cron';
    expression = input.cron!.trim();
  }
  const first = nextOccurrence({ kind, expression, timeZone }, now);
  if (first === null) {
    throw new GoondanError(
      kind === 'cron' ? 'E_SCHEDULE_INVALID' : 'E_SCHEDULE_IN_PAST',
      kind === 'cron'
        ? `cron '${clip(expression)}' never matches a date (e.g. 30 February, or a year already past).`
        : `The ${kind === 'at' ? 'time' : 'rule'} has no occurrence after now (${new Date(now).toISOString()}); its COUNT or UNTIL is used up.`,
    );
  }
  return {
    id: newId('sch'),
    agent: input.agent,
    instanceKey,
    kind,
    expression,
    timeZone,
    label: label || text.slice(0, 80),
    input: text,
    missedPolicy,
    status: 'active',
    nextDueAt: first,
    lastFiredAt: null,
    createdAt: now,
  };
}
