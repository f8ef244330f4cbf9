import { describe, expect, test } from 'bun:test';
import { GoondanError } from '../errors/goondan-error.ts';
import { buildSchedule } from './build-schedule.ts';
import type { ScheduleInput } from './schedule-types.ts';

const now = Date.parse('2026-01-10T08:00:00Z');
const base = { agent: 'assistant', instanceKey: 'default', input: 'hello' };

function codeOf(input: Partial<ScheduleInput>): { code: string; message: string } {
  try {
    buildSchedule({ input: { ...base, ...input } as ScheduleInput, now, agents: ['assistant', 'planner'] });
  } catch (thrown) {
    expect(thrown).toBeInstanceOf(GoondanError);
    return { code: (thrown as GoondanError).code, message: (thrown as Error).message };
  }
  throw new Error('expected a refusal');
}

describe('buildSchedule refuses bad input with a coded error', () => {
  test.each([
    ['a time in the past', { at: '2026-01-10T07:59:00Z' }, 'E_SCHEDULE_IN_PAST', '60 s in the past'],
    [
      'a local time in the past in its zone',
      { at: '2026-01-10T16:59', timeZone: 'Asia/Seoul' },
      'E_SCHEDULE_IN_PAST',
      'past',
    ],
    ['an unreadable time', { at: 'tomorrow-ish' }, 'E_SCHEDULE_INVALID', 'ISO 8601'],
    ['an unknown FREQ', { rrule: 'FREQ=SOMETIMES' }, 'E_SCHEDULE_INVALID', 'SOMETIMES'],
    [
      'an RRULE that never matches',
      { rrule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30' },
      'E_SCHEDULE_INVALID',
      'no occurrence',
    ],
    [
      'an RRULE used up',
      { rrule: 'DTSTART:20200101T090000Z\nRRULE:FREQ=DAILY;COUNT=2' },
      'E_SCHEDULE_IN_PAST',
      'COUNT or UNTIL',
    ],
    ['a cron with a bad field', { cron: '61 * * * *' }, 'E_SCHEDULE_INVALID', 'minute'],
    ['a cron that never matches', { cron: '0 0 30 2 *' }, 'E_SCHEDULE_INVALID', 'never matches'],
    ['an unknown time zone', { cron: '0 9 * * *', timeZone: 'Mars/Olympus' }, 'E_SCHEDULE_TIME_ZONE', 'Mars/Olympus'],
    // An offset, which Intl takes: an RRULE failed in it as 'invalid date string', so no shape takes one.
    [
      'a UTC offset as the zone',
      { rrule: 'FREQ=DAILY;BYHOUR=9', timeZone: '+09:00' },
      'E_SCHEDULE_TIME_ZONE',
      'UTC offset',
    ],
    ['a UTC offset without colon', { cron: '0 9 * * *', timeZone: '-0530' }, 'E_SCHEDULE_TIME_ZONE', 'UTC offset'],
    ['two shapes at once', { at: '2026-02-01T00:00:00Z', cron: '0 9 * * *' }, 'E_SCHEDULE_INVALID', 'at and cron'],
    ['no shape', {}, 'E_SCHEDULE_INVALID', 'one of at'],
    ['a zero delay', { inMs: 0 }, 'E_SCHEDULE_INVALID', 'delay (--in, or inMs in the API) must be positive'],
    ['a delay that is no number', { inMs: '5' as never }, 'E_SCHEDULE_INVALID', 'inMs'],
    [
      'a cron of eight fields, in words of ours rather than the library class',
      { cron: '* * * * * * * *' },
      'E_SCHEDULE_INVALID',
      "cron '* * * * * * * *' is not valid: exactly five, six, or seven",
    ],
    ['a delay past the last date', { inMs: 99_999_999_999 * 86_400_000 }, 'E_SCHEDULE_INVALID', 'year 275760'],
    ['an unknown agent', { agent: 'assistent', inMs: 1000 }, 'E_AGENT_UNKNOWN', "did you mean 'assistant'"],
    ['a bad instance key', { instanceKey: '../x', inMs: 1000 }, 'E_INSTANCE_KEY_INVALID', '../x'],
    ['an instance key that is no string', { instanceKey: 7 as never, inMs: 1000 }, 'E_INSTANCE_KEY_INVALID', 'number'],
    ['an unknown missed policy', { inMs: 1000, missedPolicy: 'later' as never }, 'E_SCHEDULE_INVALID', 'missedPolicy'],
  ])('%s', (_, input, code, fragment) => {
    const refused = codeOf(input);
    expect(refused.code).toBe(code);
    expect(refused.message).toContain(fragment);
  });

  test('a rule without DTSTART starts at the next whole minute (hour, for BYHOUR alone), not the second it was added', () => {
    const at = Date.parse('2026-01-10T08:14:23.456Z');
    const first = (rrule: string, timeZone = 'UTC') =>
      new Date(buildSchedule({ input: { ...base, rrule, timeZone }, now: at }).nextDueAt as number).toISOString();
    expect(first('FREQ=DAILY;BYHOUR=9;BYMINUTE=0')).toBe('2026-01-10T09:00:00.000Z');
    expect(first('FREQ=DAILY;BYHOUR=10', 'Asia/Kolkata')).toBe('2026-01-11T04:30:00.000Z'); // 10:00 at +05:30
    expect(first('FREQ=HOURLY;COUNT=3')).toBe('2026-01-10T08:15:00.000Z');
    // A DTSTART line given is kept as it is.
    expect(first('DTSTART:20260110T081423Z\nRRULE:FREQ=HOURLY')).toBe('2026-01-10T09:14:23.000Z');
  });

  test('a local time is read in the schedule zone', () => {
    const record = buildSchedule({ input: { ...base, at: '2026-01-10T18:30', timeZone: 'Asia/Seoul' }, now });
    expect(record.nextDueAt).toBe(Date.parse('2026-01-10T09:30:00Z'));
    expect(record.label).toBe('hello');
  });

  test('without an instance key a schedule fires into instance default (as gdn schedules add without --instance)', () => {
    const { instanceKey: _, ...withoutKey } = base;
    const record = buildSchedule({ input: { ...withoutKey, inMs: 1500 }, now });
    expect(record.instanceKey).toBe('default');
  });
});
