import { GoondanError } from '@goondan/core/errors';
import { koreanNumber, koreanNumberPattern } from './korean-numbers.ts';
import { addDays, daysInMonth, epochOfWallClock, type WallClock, wallClockOf } from './zoned-time.ts';

const N = koreanNumberPattern;
const periods = '오전|오후|아침|점심|낮|저녁|밤|새벽';
const relative = `(?:(?<relDays>\\d{1,3})\\s*일\\s*)?(?:(?<relHours>${N})\\s*시간\\s*(?<relHalf>반)?\\s*)?(?:(?<relMinutes>\\d{1,4})\\s*분\\s*)?(?:(?<relSeconds>\\d{1,5})\\s*초\\s*)?(?:후|뒤|있다가|이따가|(?<relAgo>전))`;
const date = [
  '(?<dayWord>내일\\s*모레|오늘|금일|내일|명일|모레|글피|어제|그저께|그제)',
  '(?:(?:(?<yearWord>올해|금년|내년)|(?<year>\\d{4})\\s*년)\\s*)?(?<month>\\d{1,2})\\s*월\\s*(?<monthDay>\\d{1,2})\\s*일',
  '(?<monthWord>이번\\s*달|이달|다음\\s*달)\\s*(?<monthWordDay>\\d{1,2})\\s*일',
  '(?:(?<weekWord>이번\\s*주|금주|다음\\s*주|담주|다다음\\s*주|지난\\s*주|저번\\s*주)\\s*)?(?<weekday>[월화수목금토일])요일',
  '(?<weekendWord>이번\\s*주말|다음\\s*주말|주말)',
  `(?<dateAfter>${N})\\s*(?<dateUnit>주일|주|달|개월)\\s*(?:후|뒤|(?<dateAgo>전))`,
  '(?<weekOnly>다다음\\s*주|다음\\s*주|담주)',
  '(?<lonelyDay>\\d{1,2})\\s*일(?!\\s*(?:후|뒤|전|마다))',
].join('|');
const time = [
  `(?:(?<period>${periods})\\s*)?(?:(?<hour>${N})\\s*시(?!간)(?:\\s*(?<half>반)|\\s*(?<minute>\\d{1,2})\\s*분)?|(?<clockHour>\\d{1,2}):(?<clockMinute>\\d{2}))`,
  '(?<noonWord>정오|자정)',
  `(?<periodOnly>${periods})`,
].join('|');

/** One Korean time expression: a relative delay, or a date and/or a time of day. */
// Starts at a digit or Hangul syllable, so it never matches the empty end of the text (chrono would loop there).
export const koreanWhenPattern = new RegExp(
  `(?=[\\d가-힣])(?:${relative}|(?:${date})?(?:\\s*(?:에|의|,)?\\s*)(?:${time})?)`,
);

/** What a Korean phrase resolves to, before chrono wraps it. `notes` say what was assumed. */
export interface KoreanWhen {
  epochMs: number;
  notes: string[];
}

const dayWords: Record<string, number> = {
  오늘: 0,
  금일: 0,
  내일: 1,
  명일: 1,
  모레: 2,
  글피: 3,
  어제: -1,
  그제: -2,
  그저께: -2,
};
const weekdayIndex: Record<string, number> = { 일: 0, 월: 1, 화: 2, 수: 3, 목: 4, 금: 5, 토: 6 };
const weekShift: Record<string, number> = {
  이번주: 0,
  금주: 0,
  다음주: 7,
  담주: 7,
  다다음주: 14,
  지난주: -7,
  저번주: -7,
};
const periodDefaults: Record<string, number> = {
  오전: 9,
  아침: 9,
  점심: 12,
  낮: 12,
  오후: 15,
  저녁: 18,
  밤: 21,
  새벽: 6,
};

function invalid(message: string, suggestion: string): GoondanError {
  return new GoondanError('E_WHEN_INVALID', message, { suggestion });
}

function checkedDate(year: number, month: number, day: number) {
  if (month < 1 || month > 12) throw invalid(`${month}월 does not exist.`, 'Months run from 1월 to 12월.');
  const last = daysInMonth(year, month);
  if (day < 1 || day > last) {
    throw invalid(
      `${year}년 ${month}월 has no day ${day} (it has ${last} days).`,
      `Pick a day from 1 to ${last}, e.g. '${month}월 ${last}일'.`,
    );
  }
  return { year, month, day };
}

export type Groups = Record<string, string | undefined>;
type CivilDate = { year: number; month: number; day: number };

/** The date part: a civil date and whether it was stated (a stated date is not moved forward). */
function resolveDate(
  g: Groups,
  today: WallClock,
  notes: string[],
): { date: CivilDate; forwardDays?: number } | undefined {
  const compact = (text: string | undefined) => text?.replace(/\s+/g, '');
  if (g.dayWord) return { date: addDays(today, compact(g.dayWord) === '내일모레' ? 2 : (dayWords[g.dayWord] ?? 0)) };
  if (g.month) {
    const month = Number(g.month);
    const day = Number(g.monthDay);
    if (g.year || g.yearWord) {
      const year = g.year ? Number(g.year) : today.year + (g.yearWord === '내년' ? 1 : 0);
      return { date: checkedDate(year, month, day) };
    }
    const thisYear = checkedDate(month === 2 && day === 29 ? nextLeapYear(today.year) : today.year, month, day);
    const passed = thisYear.year === today.year && (month < today.month || (month === today.month && day < today.day));
    return { date: passed ? checkedDate(today.year + 1, month, day) : thisYear };
  }
  if (g.monthWord) {
    const next = compact(g.monthWord) === '다음달';
    const base = next
      ? addDays({ year: today.year, month: today.month, day: 1 }, daysInMonth(today.year, today.month))
      : today;
    return { date: checkedDate(base.year, base.month, Number(g.monthWordDay)) };
  }
  if (g.weekday) {
    const target = weekdayIndex[g.weekday] as number;
    const word = compact(g.weekWord);
    if (word === undefined) return { date: addDays(today, (target - today.weekday + 7) % 7), forwardDays: 7 };
    const monday = addDays(today, -((today.weekday + 6) % 7));
    return { date: addDays(monday, (weekShift[word] ?? 0) + ((target + 6) % 7)) };
  }
  if (g.weekendWord) {
    const word = compact(g.weekendWord);
    const monday = addDays(today, -((today.weekday + 6) % 7));
    if (word === '주말') return { date: addDays(today, (6 - today.weekday + 7) % 7), forwardDays: 7 };
    return { date: addDays(monday, 5 + (word === '다음주말' ? 7 : 0)) };
  }
  if (g.dateAfter) {
    const count = (g.dateAgo ? -1 : 1) * (koreanNumber(g.dateAfter) ?? 0);
    if (g.dateUnit === '달' || g.dateUnit === '개월') {
      const monthIndex = today.month - 1 + count;
      const year = today.year + Math.floor(monthIndex / 12);
      const month = (((monthIndex % 12) + 12) % 12) + 1;
      return { date: { year, month, day: Math.min(today.day, daysInMonth(year, month)) } };
    }
    return { date: addDays(today, count * 7) };
  }
  if (g.weekOnly) {
    const monday = addDays(today, -((today.weekday + 6) % 7));
    notes.push(`'${g.weekOnly}' names no day: its Monday is assumed.`);
    return { date: addDays(monday, compact(g.weekOnly) === '다다음주' ? 14 : 7) };
  }
  if (g.lonelyDay) {
    const day = Number(g.lonelyDay);
    if (day >= today.day) return { date: checkedDate(today.year, today.month, day) };
    const next = addDays({ year: today.year, month: today.month, day: 1 }, daysInMonth(today.year, today.month));
    return { date: checkedDate(next.year, next.month, day) };
  }
  return undefined;
}

function nextLeapYear(year: number): number {
  let candidate = year;
  while (daysInMonth(candidate, 2) !== 29) candidate += 1;
  return candidate;
}

/** Hour candidates (0–29, past 23 is the next day) and minute of the time part; undefined when there is none. */
export function resolveTime(
  g: Groups,
  dateStated: boolean,
  notes: string[],
): { hours: number[]; minute: number } | undefined {
  if (g.noonWord) return { hours: [g.noonWord === '정오' ? 12 : 24], minute: 0 };
  if (g.periodOnly) {
    const hour = periodDefaults[g.periodOnly] as number;
    notes.push(`'${g.periodOnly}' has no hour: ${String(hour).padStart(2, '0')}:00 is assumed.`);
    return { hours: [hour], minute: 0 };
  }
  const rawHour = g.clockHour ?? g.hour;
  if (rawHour === undefined) return undefined;
  const hour = g.clockHour !== undefined ? Number(g.clockHour) : (koreanNumber(g.hour) as number);
  const minute = g.half ? 30 : Number(g.minute ?? g.clockMinute ?? 0);
  if (minute > 59) throw invalid(`${minute}분 is not a minute of an hour.`, 'Minutes run from 0 to 59.');
  if (hour > 24)
    throw invalid(`${hour}시 is not an hour of the day.`, 'Hours run from 0시 to 24시 (or 오전/오후 1–12시).');
  const period = g.period;
  if (period) {
    if (hour > 12) {
      throw invalid(
        `'${period} ${hour}시' mixes a 12-hour period with a 24-hour clock.`,
        `Say '${hour}시' or '${period} ${hour - 12}시'.`,
      );
    }
    if (period === '오전' || period === '아침' || period === '새벽') return { hours: [hour % 12], minute };
    if (period === '밤') return { hours: [hour === 12 ? 24 : hour <= 5 ? hour + 24 : hour + 12], minute };
    if (period === '점심' || period === '낮') return { hours: [hour >= 10 ? hour : hour + 12], minute };
    return { hours: [hour === 12 ? 12 : hour + 12], minute };
  }
  if (hour === 0 || hour >= 12) return { hours: [hour], minute };
  const pm = hour + 12;
  const label = (value: number) => `${String(value).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
  if (hour <= 6 || dateStated) {
    const chosen = hour <= 6 ? pm : hour;
    notes.push(
      `'${hour}시' without 오전/오후 is read as ${label(chosen)}; say '${chosen === pm ? '오전' : '오후'} ${hour}시' for ${label(chosen === pm ? hour : pm)}.`,
    );
    return { hours: [chosen], minute };
  }
  notes.push(
    `'${hour}시' without 오전/오후 is read as the next of ${label(hour)} and ${label(pm)}; say 오전 or 오후 to choose.`,
  );
  return { hours: [hour, pm], minute };
}

/** Resolves one match of `koreanWhenPattern` relative to `now` in `timeZone`; undefined for an empty match. */
export function resolveKoreanWhen(g: Groups, now: number, timeZone: string): KoreanWhen | undefined {
  const notes: string[] = [];
  if (g.relHours !== undefined || g.relMinutes !== undefined || g.relSeconds !== undefined || g.relDays !== undefined) {
    // 후/뒤 is after now, 전 before it ('3일 전' is three days ago, not the 3rd).
    const sign = g.relAgo ? -1 : 1;
    const hours = (koreanNumber(g.relHours) ?? 0) + (g.relHalf ? 0.5 : 0);
    const days = sign * Number(g.relDays ?? 0);
    const delay = sign * (hours * 3_600_000 + Number(g.relMinutes ?? 0) * 60_000 + Number(g.relSeconds ?? 0) * 1000);
    if (days === 0) return { epochMs: now + delay, notes };
    // Whole days keep the clock time across a DST change, as people expect of '3일 후'.
    const wall = wallClockOf(now, timeZone);
    const day = addDays(wall, days);
    return {
      epochMs:
        epochOfWallClock({ ...day, hour: wall.hour, minute: wall.minute, second: wall.second }, timeZone, notes) +
        delay,
      notes,
    };
  }
  const today = wallClockOf(now, timeZone);
  const datePart = resolveDate(g, today, notes);
  const timePart = resolveTime(g, datePart !== undefined, notes);
  if (!datePart && !timePart) return undefined;
  if (!timePart) {
    const sameClock = g.dateAfter !== undefined;
    if (!sameClock) notes.push('No time of day was given: 09:00 is assumed.');
    const at = sameClock ? { hour: today.hour, minute: today.minute } : { hour: 9, minute: 0 };
    return { epochMs: epochOfWallClock({ ...(datePart as { date: CivilDate }).date, ...at }, timeZone, notes), notes };
  }
  const base = datePart?.date ?? today;
  const forwardDays = datePart ? datePart.forwardDays : 1;
  // Each reading with the DST notes of its own day; the one taken brings its notes.
  const candidates = timePart.hours.map((hour) => {
    const own: string[] = [];
    const first = epochOfWallClock({ ...base, hour, minute: timePart.minute }, timeZone, own);
    if (forwardDays === undefined || first > now) return { epochMs: first, own };
    own.length = 0;
    const later = addDays(base, forwardDays);
    return { epochMs: epochOfWallClock({ ...later, hour, minute: timePart.minute }, timeZone, own), own };
  });
  const taken = candidates.reduce((a, b) => (b.epochMs < a.epochMs ? b : a));
  return { epochMs: taken.epochMs, notes: [...notes, ...taken.own] };
}
