import { GoondanError } from '@goondan/core/errors';
import type { ParsedResult, Parser } from 'chrono-node';
import { koreanWhenPattern, resolveKoreanWhen } from './korean-when.ts';
import { looksRecurring, parseRecurring, type RecurringWhen } from './recurring-when.ts';
import {
  checkTimeZone,
  daysInMonth,
  epochOfWallClock,
  isoInZone,
  offsetMinutesAt,
  utcEpoch,
  wallClockOf,
  weekdayNameAt,
} from './zoned-time.ts';

/** One instant, echoed with its zone so a wrong reading is visible. `notes` say what was assumed. */
export interface InstantWhen {
  kind: 'instant';
  epochMs: number;
  iso: string;
  timeZone: string;
  weekday: string;
  notes: string[];
}

export type When = InstantWhen | RecurringWhen;
export type { RecurringWhen };

export interface ParseWhenOptions {
  /** The reference instant (epoch ms): "tomorrow" is the day after this, in `timeZone`. */
  now: number;
  /** IANA zone the phrase is read in; never the host's unless the caller passes it. */
  timeZone: string;
}

const notePrefix = 'goondan/note:';
/** The exact instant a Korean phrase resolved to: chrono's offsets are whole minutes, local mean time is not. */
const epochPrefix = 'goondan/epoch:';
const maxLength = 200;
const examples =
  "ISO 8601 with an offset (2026-05-01T09:00:00+09:00), 'tomorrow at 3pm', 'in 20 minutes', 'next tuesday 9am', '내일 오후 3시', '3시간 후', '다음 주 화요일 아침 9시'";

let chronoModule: Promise<typeof import('chrono-node')> | undefined;
/** chrono-node loads on first use: the CLI imports every Tool entry on every command. */
function chrono() {
  chronoModule ??= import('chrono-node');
  return chronoModule;
}

function unreadable(text: string, detail = ''): GoondanError {
  return new GoondanError('E_WHEN_UNREADABLE', `Could not read a date or time in '${text}'${detail}.`, {
    suggestion: `Write it as ${examples}.`,
  });
}

function invalidDate(year: number, month: number, day: number): GoondanError {
  const last = daysInMonth(year, month);
  return new GoondanError(
    'E_WHEN_INVALID',
    `${year}-${String(month).padStart(2, '0')} has no day ${day} (it has ${last} days).`,
    {
      suggestion: `Pick a day from 1 to ${last}${month === 2 && day === 29 ? ', or name a leap year (2028)' : ''}.`,
    },
  );
}

/**
 * `epochMs` if it falls in the years 0000–9999 of the zone (ISO 8601 and RFC 5545 write years in four digits), else
 * E_WHEN_INVALID naming the year and the range: 'in 99999999999 minutes' would be the year 192159.
 */
function inYearRange(text: string, epochMs: number, timeZone: string): number {
  const first = epochOfWallClock({ year: 0, month: 1, day: 1 }, timeZone);
  const end = epochOfWallClock({ year: 10_000, month: 1, day: 1 }, timeZone);
  if (Number.isFinite(epochMs) && epochMs >= first && epochMs < end) return epochMs;
  // A Date holds ±8.64e15 ms (the year 275760); past that only the side is known.
  const year = Math.abs(epochMs) <= 8.64e15 ? wallClockOf(epochMs, timeZone).year : undefined;
  const late = !(epochMs < first);
  const where = year === undefined ? (late ? 'after the year 9999' : 'before the year 0000') : `in the year ${year}`;
  throw new GoondanError(
    'E_WHEN_INVALID',
    `'${text}' is ${where} in ${timeZone}; dates run from 0000-01-01 to 9999-12-31.`,
    {
      suggestion: late
        ? 'Give a date up to 9999-12-31: an ISO 8601 date (2030-05-01T09:00:00+09:00) or a shorter delay.'
        : 'Give a date from 0000-01-01 on, its year in four digits (0099-05-01 is the year 99).',
    },
  );
}

function instant(epochMs: number, timeZone: string, notes: string[]): InstantWhen {
  return {
    kind: 'instant',
    epochMs,
    iso: isoInZone(epochMs, timeZone),
    timeZone,
    weekday: weekdayNameAt(epochMs, timeZone),
    notes,
  };
}

const isoPattern =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

function parseIso(text: string, timeZone: string): { epochMs: number; notes: string[] } | undefined {
  const m = isoPattern.exec(text);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12)
    throw new GoondanError('E_WHEN_INVALID', `Month ${month} does not exist.`, {
      suggestion: 'Months run from 01 to 12.',
    });
  if (day < 1 || day > daysInMonth(year, month)) throw invalidDate(year, month, day);
  const [hour, minute, second] = [Number(m[4] ?? 9), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  if (hour > 23 || minute > 59 || second > 59) {
    throw new GoondanError('E_WHEN_INVALID', `${m[4]}:${m[5]}:${m[6] ?? '00'} is not a time of day.`, {
      suggestion: 'Hours run 00–23, minutes and seconds 00–59.',
    });
  }
  const notes = m[4] === undefined ? ['No time of day was given: 09:00 is assumed.'] : [];
  const millisecond = Number((m[7] ?? '0').padEnd(3, '0'));
  const fields = utcEpoch(year, month - 1, day, hour, minute, second, millisecond);
  if (m[8] === undefined)
    return {
      epochMs: epochOfWallClock({ year, month, day, hour, minute, second }, timeZone, notes) + millisecond,
      notes,
    };
  const [offsetHours, offsetMinutes] =
    m[8].toUpperCase() === 'Z' ? [0, 0] : [Number(m[8].slice(1, 3)), Number(m[8].slice(-2))];
  if (offsetHours > 23 || offsetMinutes > 59)
    throw new GoondanError('E_WHEN_INVALID', `The offset ${m[8]} does not exist: offsets run from -23:59 to +23:59.`, {
      suggestion:
        "Check the offset (today's zones run from -12:00 to +14:00; +09:00 is Seoul), or leave it out to read the time in the zone.",
    });
  const offset = (m[8][0] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
  return { epochMs: fields - offset * 60_000, notes };
}

const months = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** Impossible or doubtful dates chrono would skip in silence: "February 30", "03/04". */
function checkEnglishDates(text: string, today: { year: number }): void {
  const lower = text.toLowerCase();
  const year = Number(/\b(\d{4})\b/.exec(lower)?.[1] ?? today.year);
  const named =
    /\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b/.exec(lower) ??
    /\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*/.exec(lower);
  if (named) {
    const [monthName, day] = /^\d/.test(named[1] as string)
      ? [named[2], Number(named[1])]
      : [named[1], Number(named[2])];
    const month = months.indexOf(monthName as string) + 1;
    if (day < 1 || day > daysInMonth(year, month)) throw invalidDate(year, month, day);
  }
  const slash = /\b(\d{1,2})\/(\d{1,2})(?:\/(\d{2,4}))?\b/.exec(lower);
  if (slash && Number(slash[1]) <= 12 && Number(slash[2]) <= 12 && slash[1] !== slash[2]) {
    throw new GoondanError('E_WHEN_AMBIGUOUS', `'${slash[0]}' can be month/day or day/month.`, {
      suggestion: `Write the month by name or as ISO 8601, e.g. '${months[Number(slash[1]) - 1]} ${Number(slash[2])}' or '${months[Number(slash[2]) - 1]} ${Number(slash[1])}'.`,
    });
  }
}

function koreanParser(now: number, timeZone: string): Parser {
  return {
    pattern: () => koreanWhenPattern,
    extract: (context, match) => {
      if (match[0].trim() === '') return null;
      const resolved = resolveKoreanWhen(match.groups ?? {}, now, timeZone);
      if (!resolved) return null;
      const wall = wallClockOf(resolved.epochMs, timeZone);
      const components = context.createParsingComponents({
        ...wall,
        millisecond: resolved.epochMs % 1000,
        timezoneOffset: offsetMinutesAt(resolved.epochMs, timeZone),
      });
      components.addTags([
        ...resolved.notes.map((note) => `${notePrefix}${note}`),
        `${epochPrefix}${resolved.epochMs}`,
      ]);
      return components;
    },
  };
}

/**
 * An offset written at the end of chrono's match that chrono took into the match without reading it: `at 3pm -05:00`
 * (it reads `-0500` and `+09:00`, but a negative one with a colon is left uncertain and the time read in the zone).
 */
function unreadOffset(text: string): number | undefined {
  const m = /(?:^|\s)([+-])(\d{2}):(\d{2})$/.exec(text.trim());
  if (!m) return undefined;
  const [hours, minutes] = [Number(m[2]), Number(m[3])];
  if (hours > 23 || minutes > 59)
    throw new GoondanError(
      'E_WHEN_INVALID',
      `The offset ${m[1]}${m[2]}:${m[3]} does not exist: offsets run from -23:59 to +23:59.`,
      {
        suggestion:
          "Check the offset (today's zones run from -12:00 to +14:00; +09:00 is Seoul), or leave it out to read the time in the zone.",
      },
    );
  return (m[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

/** The instant a chrono result names: a stated or relative offset is exact; a wall-clock time is read in the zone. */
function epochOf(result: ParsedResult, timeZone: string, notes: string[]): number {
  const start = result.start;
  const get = (component: 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'millisecond') =>
    start.get(component) ?? 0;
  const fields = {
    year: get('year'),
    month: get('month'),
    day: get('day'),
    hour: get('hour'),
    minute: get('minute'),
    second: get('second'),
  };
  const stated = start.isCertain('timezoneOffset') ? (start.get('timezoneOffset') ?? 0) : unreadOffset(result.text);
  if (stated !== undefined) {
    const offset = stated;
    return (
      utcEpoch(
        fields.year,
        fields.month - 1,
        fields.day,
        fields.hour,
        fields.minute,
        fields.second,
        get('millisecond'),
      ) -
      offset * 60_000
    );
  }
  const tags = [...start.tags()];
  const partOfDay = tags.some((tag) =>
    /^casualReference\/(morning|afternoon|evening|noon|midnight|tonight|now)$/.test(tag),
  );
  if (!start.isCertain('hour') && !partOfDay && !tags.includes('result/relativeDate')) {
    notes.push('No time of day was given: 09:00 is assumed.');
    return epochOfWallClock({ ...fields, hour: 9, minute: 0, second: 0 }, timeZone, notes);
  }
  if (!start.isCertain('meridiem') && fields.hour >= 1 && fields.hour <= 6 && start.isCertain('hour')) {
    notes.push(
      `'${fields.hour}' without am/pm is read as ${fields.hour + 12}:${String(fields.minute).padStart(2, '0')}; say '${fields.hour}am' for the morning.`,
    );
    fields.hour += 12;
  }
  return epochOfWallClock(fields, timeZone, notes);
}

/** Full-width ASCII (`３시`, `１０：３０`, as CJK input methods type it) as ASCII; Hangul and everything else unchanged. */
const halfWidth = (text: string): string =>
  text.replace(/[\uFF01-\uFF5E]/g, (char) => String.fromCharCode(char.charCodeAt(0) - 0xfee0));

/**
 * Reads a date or time as people write it, in Korean or English, relative to `now` in `timeZone`.
 *
 * @example
 * await parseWhen('내일 오후 3시', { now: Date.parse('2026-11-23T10:00:00+09:00'), timeZone: 'Asia/Seoul' })
 * // { kind: 'instant', iso: '2026-11-24T15:00:00+09:00', timeZone: 'Asia/Seoul', … }
 */
export async function parseWhen(text: string, options: ParseWhenOptions): Promise<When> {
  const timeZone = checkTimeZone(options.timeZone);
  const { now } = options;
  const trimmed = halfWidth(text).trim().replace(/\s+/g, ' ');
  if (trimmed === '' || trimmed.length > maxLength)
    throw unreadable(trimmed.slice(0, 40), trimmed === '' ? '' : ` (longer than ${maxLength} characters)`);
  const iso = parseIso(trimmed, timeZone);
  if (iso) return instant(inYearRange(trimmed, iso.epochMs, timeZone), timeZone, iso.notes);
  // A minus before a number ('-1시간 후', '-5 minutes from now', 'tomorrow -3pm') was dropped or read as an offset:
  // an hour later, five minutes later, 22:00. Not a range (3-4pm) nor a stated offset (-0500, -05:00).
  const negative = /(?:^|[^\p{L}\p{N}])([-\u2212]\s*\p{Nd}+)(?![\p{Nd}:])/u.exec(trimmed);
  if (negative && !/^[-\u2212]\d{4}$/.test(negative[1] as string))
    throw new GoondanError(
      'E_WHEN_UNREADABLE',
      `Could not read '${negative[1]}' in '${trimmed}': a time is not a negative amount.`,
      { suggestion: "For the past say '1시간 전' or '5 minutes ago'; for the future give the amount without a minus." },
    );
  if (looksRecurring(trimmed)) return parseRecurring(trimmed, now, timeZone);
  const korean = /[가-힣]/.test(trimmed);
  const { Chrono, casual } = await chrono();
  const notes: string[] = [];
  if (!korean) checkEnglishDates(trimmed, wallClockOf(now, timeZone));
  const parser = korean ? new Chrono({ parsers: [koreanParser(now, timeZone)], refiners: [] }) : casual;
  const results = parser.parse(
    trimmed,
    { instant: new Date(now), timezone: offsetMinutesAt(now, timeZone) },
    { forwardDate: true },
  );
  const first = results[0];
  if (!first) throw unreadable(trimmed);
  if (results.length > 1) {
    throw new GoondanError(
      'E_WHEN_AMBIGUOUS',
      `'${trimmed}' names more than one time: ${results.map((r) => `'${r.text.trim()}'`).join(', ')}.`,
      {
        suggestion: 'Give one time per call.',
      },
    );
  }
  const leftover = trimmed.replace(first.text, ' ');
  // Digits of any script: `٣` left over is a time not read, not a word to skip.
  if (/\p{Nd}/u.test(leftover)) throw unreadable(trimmed, `: '${leftover.trim()}' was not understood`);
  let exact: number | undefined;
  for (const tag of first.start.tags()) {
    if (tag.startsWith(notePrefix)) notes.push(tag.slice(notePrefix.length));
    if (tag.startsWith(epochPrefix)) exact = Number(tag.slice(epochPrefix.length));
  }
  return instant(inYearRange(trimmed, exact ?? epochOf(first, timeZone, notes), timeZone), timeZone, notes);
}
