import { GoondanError } from '@goondan/core/errors';
import { koreanNumber, koreanNumberPattern } from './korean-numbers.ts';
import { type Groups, koreanWhenPattern, resolveTime } from './korean-when.ts';
import { addDays, epochOfWallClock, isoInZone, rfc5545Stamp, wallClockOf } from './zoned-time.ts';

/** A repeating time: RFC 5545 text with `DTSTART;TZID=` on the first occurrence. */
export interface RecurringWhen {
  kind: 'recurring';
  rrule: string;
  timeZone: string;
  description: string;
  /** The first occurrence, so a wrong reading is visible. */
  firstEpochMs: number;
  firstIso: string;
  notes: string[];
}

type Rule =
  | { frequency: 'daily' | 'weekly'; days: number[] }
  | { frequency: 'monthly'; monthDay: number }
  | { frequency: 'interval'; unit: 'hour' | 'minute'; every: number };

const codes = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'];
const names = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const koreanDays: Record<string, number> = { 일: 0, 월: 1, 화: 2, 수: 3, 목: 4, 금: 5, 토: 6 };
const englishDays = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const weekdays = [1, 2, 3, 4, 5];
const everyDay = [0, 1, 2, 3, 4, 5, 6];

/** Does the text ask for a repetition at all? (Then it must parse as one, or it is an error.) */
export function looksRecurring(text: string): boolean {
  return /^(매|날마다|평일|주중|주말마다|[월화수목금토일]요일마다)|마다|^(every|each|daily|weekdays|weekends|on weekdays|hourly)\b/i.test(
    text,
  );
}

function koreanRule(text: string): { rule: Rule; rest: string } | undefined {
  const N = koreanNumberPattern;
  const interval = new RegExp(`^(?:(${N})\\s*(시간|분)\\s*마다|매\\s*(시간|분))`).exec(text);
  if (interval) {
    const unit = (interval[2] ?? interval[3]) === '분' ? 'minute' : 'hour';
    return {
      rule: { frequency: 'interval', unit, every: koreanNumber(interval[1]) ?? 1 },
      rest: text.slice(interval[0].length),
    };
  }
  const table: [RegExp, (m: RegExpExecArray) => Rule][] = [
    [/^(?:매일\s*매일|매일|날마다|하루\s*마다)/, () => ({ frequency: 'daily', days: everyDay })],
    [/^(?:매\s*평일|평일\s*마다|주중\s*마다|평일|주중)/, () => ({ frequency: 'weekly', days: weekdays })],
    [/^(?:매\s*주말|주말\s*마다)/, () => ({ frequency: 'weekly', days: [0, 6] })],
    [
      /^(?:매주\s*)?((?:[월화수목금토일](?:요일)?\s*(?:[,·와과및]|하고)?\s*)+?)(?:요일)?\s*마다|^매주\s*((?:[월화수목금토일](?:요일)?\s*(?:[,·와과및]|하고)?\s*)+)/,
      (m) => ({
        frequency: 'weekly',
        days: [
          ...new Set(
            [...((m[1] ?? m[2]) as string).replaceAll('요일', '').matchAll(/[월화수목금토일]/g)].map(
              (d) => koreanDays[d[0]] as number,
            ),
          ),
        ],
      }),
    ],
    [/^(?:매월|매달|달마다)\s*(\d{1,2})\s*일(?:\s*마다)?/, (m) => ({ frequency: 'monthly', monthDay: Number(m[1]) })],
  ];
  for (const [pattern, build] of table) {
    const match = pattern.exec(text);
    if (match) return { rule: build(match), rest: text.slice(match[0].length) };
  }
  return undefined;
}

function englishRule(text: string): { rule: Rule; rest: string } | undefined {
  const lower = text.toLowerCase();
  const interval = /^(?:every|each)\s+(?:(\d{1,3})\s+)?(hours?|minutes?|mins?)\b|^hourly\b/.exec(lower);
  if (interval) {
    const unit = interval[2]?.startsWith('h') || interval[0] === 'hourly' ? 'hour' : 'minute';
    return {
      rule: { frequency: 'interval', unit, every: Number(interval[1] ?? 1) },
      rest: lower.slice(interval[0].length),
    };
  }
  const day = '(?:sun|mon|tue|tues|wed|thu|thur|thurs|fri|sat)(?:day|nesday|rsday|urday|sday)?s?';
  const table: [RegExp, (m: RegExpExecArray) => Rule][] = [
    [/^(?:every\s*day|everyday|daily|each\s+day)\b/, () => ({ frequency: 'daily', days: everyDay })],
    [/^(?:every\s+weekday|each\s+weekday|weekdays|on\s+weekdays)\b/, () => ({ frequency: 'weekly', days: weekdays })],
    [/^(?:every\s+weekend(?:\s+day)?|weekends|on\s+weekends)\b/, () => ({ frequency: 'weekly', days: [0, 6] })],
    [
      new RegExp(`^(?:every|each|on)\\s+(${day}(?:\\s*(?:,|and|&)\\s*${day})*)\\b`),
      (m) => ({
        frequency: 'weekly',
        days: [
          ...new Set(
            [...(m[1] as string).matchAll(new RegExp(day, 'g'))].map((d) => englishDays.indexOf(d[0].slice(0, 3))),
          ),
        ],
      }),
    ],
    [
      /^(?:every|each)\s+month\s+on\s+the\s+(\d{1,2})(?:st|nd|rd|th)?\b|^(?:on\s+)?the\s+(\d{1,2})(?:st|nd|rd|th)?\s+of\s+every\s+month\b|^monthly\s+on\s+the\s+(\d{1,2})(?:st|nd|rd|th)?\b/,
      (m) => ({ frequency: 'monthly', monthDay: Number(m[1] ?? m[2] ?? m[3]) }),
    ],
  ];
  for (const [pattern, build] of table) {
    const match = pattern.exec(lower);
    if (match) return { rule: build(match), rest: lower.slice(match[0].length) };
  }
  return undefined;
}

function unreadable(text: string): GoondanError {
  return new GoondanError('E_WHEN_UNREADABLE', `Could not read a repetition in '${text}'.`, {
    suggestion:
      "Say how it repeats and when: 'every weekday at 9', 'every monday and thursday at 10am', 'every 2 hours', 'every month on the 1st at 9', '매일 아침 8시', '평일마다 9시', '매주 월요일 오전 10시', '30분마다', '매월 1일 9시'.",
  });
}

/** Hour and minute of the rest of a rule ("at 9", "오전 10시"); 09:00 when none is given. */
function timeOfDay(rest: string, english: boolean, notes: string[]): { hour: number; minute: number } | undefined {
  const text = rest
    .trim()
    .replace(/^(?:,|에|at|@)\s*/i, '')
    .trim();
  if (text === '') {
    notes.push('No time of day was given: 09:00 is assumed.');
    return { hour: 9, minute: 0 };
  }
  if (english) {
    const word = /^(noon|midday|midnight)$/.exec(text);
    if (word) return { hour: word[1] === 'midnight' ? 0 : 12, minute: 0 };
    const clock = /^(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?$/.exec(text);
    if (!clock) return undefined;
    const rawHour = Number(clock[1]);
    const minute = Number(clock[2] ?? 0);
    if (rawHour > 23 || minute > 59 || (clock[3] && (rawHour > 12 || rawHour === 0))) {
      throw new GoondanError('E_WHEN_INVALID', `'${text}' is not a time of day.`, {
        suggestion: "Use 0–23 hours, or 1–12 with am/pm, and 0–59 minutes: 'at 9:30', 'at 9:30pm'.",
      });
    }
    if (clock[3]) return { hour: (rawHour % 12) + (clock[3].startsWith('p') ? 12 : 0), minute };
    if (rawHour >= 1 && rawHour <= 6) {
      notes.push(
        `'${rawHour}' without am/pm is read as ${rawHour + 12}:${String(minute).padStart(2, '0')}; say '${rawHour}am' for the morning.`,
      );
      return { hour: rawHour + 12, minute };
    }
    return { hour: rawHour, minute };
  }
  const match = koreanWhenPattern.exec(text);
  if (!match || match[0].trim() !== text) return undefined;
  const time = resolveTime((match.groups ?? {}) as Groups, true, notes);
  if (!time) return undefined;
  const hour = time.hours[0] as number;
  if (hour >= 24) notes.push(`${hour - 24}:00 falls after midnight; it repeats on the days named, at ${hour - 24}:00.`);
  return { hour: hour % 24, minute: time.minute };
}

function describe(rule: Rule, at: { hour: number; minute: number } | undefined, timeZone: string): string {
  const clock = at ? ` at ${String(at.hour).padStart(2, '0')}:${String(at.minute).padStart(2, '0')}` : '';
  if (rule.frequency === 'interval')
    return `every ${rule.every === 1 ? '' : `${rule.every} `}${rule.unit}${rule.every === 1 ? '' : 's'} (${timeZone})`;
  if (rule.frequency === 'monthly') return `every month on day ${rule.monthDay}${clock} (${timeZone})`;
  const days =
    rule.days.length === 7
      ? 'every day'
      : `every ${[...rule.days]
          .sort((a, b) => ((a + 6) % 7) - ((b + 6) % 7))
          .map((d) => names[d])
          .join(', ')}`;
  return `${days}${clock} (${timeZone})`;
}

/** Reads "every weekday at 9" / "평일마다 9시" relative to `now` in `timeZone`. Throws when it is not a repetition. */
export function parseRecurring(text: string, now: number, timeZone: string): RecurringWhen {
  const korean = /[가-힣]/.test(text);
  const read = korean ? koreanRule(text) : englishRule(text);
  if (!read) throw unreadable(text);
  const notes: string[] = [];
  const { rule } = read;
  if (rule.frequency === 'interval') {
    if (read.rest.trim() !== '' || rule.every < 1) throw unreadable(text);
    const first = Math.floor(now / 60_000) * 60_000 + rule.every * (rule.unit === 'hour' ? 3_600_000 : 60_000);
    const rrule = `DTSTART;TZID=${timeZone}:${rfc5545Stamp(first, timeZone)}\nRRULE:FREQ=${rule.unit === 'hour' ? 'HOURLY' : 'MINUTELY'};INTERVAL=${rule.every}`;
    return {
      kind: 'recurring',
      rrule,
      timeZone,
      description: describe(rule, undefined, timeZone),
      firstEpochMs: first,
      firstIso: isoInZone(first, timeZone),
      notes,
    };
  }
  const at = timeOfDay(read.rest, !korean, notes);
  if (!at) throw unreadable(text);
  if (rule.frequency === 'monthly' && (rule.monthDay < 1 || rule.monthDay > 31)) {
    throw new GoondanError('E_WHEN_INVALID', `No month has a day ${rule.monthDay}.`, {
      suggestion: 'Pick a day of the month from 1 to 31.',
    });
  }
  if (rule.frequency === 'monthly' && rule.monthDay > 28)
    notes.push(`Months without a day ${rule.monthDay} are skipped (RFC 5545).`);
  const today = wallClockOf(now, timeZone);
  let first: number | undefined;
  for (let offset = 0; offset < 400 && first === undefined; offset += 1) {
    const day = addDays(today, offset);
    const matches = rule.frequency === 'monthly' ? day.day === rule.monthDay : rule.days.includes(day.weekday);
    if (!matches) continue;
    const own: string[] = [];
    const epoch = epochOfWallClock({ ...day, hour: at.hour, minute: at.minute }, timeZone, own);
    if (epoch > now) {
      first = epoch;
      notes.push(...own); // the first occurrence falls in a DST change (the later ones are the scheduler's)
    }
  }
  const start = first as number;
  const by =
    rule.frequency === 'monthly'
      ? `FREQ=MONTHLY;BYMONTHDAY=${rule.monthDay}`
      : rule.frequency === 'daily'
        ? 'FREQ=DAILY'
        : `FREQ=WEEKLY;BYDAY=${[...rule.days]
            .sort((a, b) => ((a + 6) % 7) - ((b + 6) % 7))
            .map((d) => codes[d])
            .join(',')}`;
  const rrule = `DTSTART;TZID=${timeZone}:${rfc5545Stamp(start, timeZone)}\nRRULE:${by};BYHOUR=${at.hour};BYMINUTE=${at.minute};BYSECOND=0`;
  return {
    kind: 'recurring',
    rrule,
    timeZone,
    description: describe(rule, at, timeZone),
    firstEpochMs: start,
    firstIso: isoInZone(start, timeZone),
    notes,
  };
}
