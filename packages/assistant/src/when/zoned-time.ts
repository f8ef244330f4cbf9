import { GoondanError } from '@goondan/core/errors';
import { resolveTimeZone } from '@goondan/core/time-zone';

export { resolveTimeZone };

/** Wall-clock fields of an instant in a zone. `weekday` is 0 (Sunday) … 6 (Saturday), `month` 1 … 12. */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const weekdays = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const weekdayNames = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
      era: 'short',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The host's IANA zone (UTC if it has none), named in results so a default is never silent. */
export function hostTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** The canonical IANA name of `timeZone`; an unknown zone or a UTC offset is E_TOOL_INVALID_ARGS with a suggestion. */
export function checkTimeZone(timeZone: string): string {
  const resolved = resolveTimeZone(timeZone);
  if ('zone' in resolved) return resolved.zone;
  throw new GoondanError('E_TOOL_INVALID_ARGS', resolved.message, { suggestion: resolved.suggestion });
}

const MS_PER_400_YEARS = 146_097 * 86_400_000;

/**
 * `Date.UTC` for the year written: `Date.UTC` reads years 0–99 as 1900–1999, so those are computed 400 years later
 * (the Gregorian calendar repeats every 400 years, leap days included) and moved back. Fields overflow as in
 * `Date.UTC` (day 32 is the next month's 1st).
 */
export function utcEpoch(
  year: number,
  monthIndex: number,
  day = 1,
  hour = 0,
  minute = 0,
  second = 0,
  millisecond = 0,
): number {
  if (year < 0 || year > 99) return Date.UTC(year, monthIndex, day, hour, minute, second, millisecond);
  return Date.UTC(year + 400, monthIndex, day, hour, minute, second, millisecond) - MS_PER_400_YEARS;
}

export function wallClockOf(epochMs: number, timeZone: string): WallClock {
  const parts = Object.fromEntries(
    formatterFor(timeZone)
      .formatToParts(epochMs)
      .map((part) => [part.type, part.value]),
  );
  return {
    // Year 0 and before are '1 BC', '2 BC', … (proleptic Gregorian; ISO 8601's year 0000 is 1 BC).
    year: parts.era === 'BC' ? 1 - Number(parts.year) : Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour) % 24,
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: weekdays.indexOf(parts.weekday as string),
  };
}

/** Offset of the zone from UTC at an instant, to the second (local mean time before 1900 can be −4:56:02). */
function offsetMsAt(epochMs: number, timeZone: string): number {
  const wall = wallClockOf(epochMs, timeZone);
  const asUtc = utcEpoch(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  return asUtc - Math.floor(epochMs / 1000) * 1000;
}

/** Offset of the zone from UTC at an instant, in minutes (Seoul: 540). */
export function offsetMinutesAt(epochMs: number, timeZone: string): number {
  return Math.round(offsetMsAt(epochMs, timeZone) / 60_000);
}

/**
 * The instant at which the zone's clocks show the given wall-clock time. Calendar overflow is normalised first
 * (day 32 is the 1st of the next month, hour 24 the next midnight). A time skipped by a DST jump moves forward by
 * the jump; a repeated time takes its first occurrence. Given `notes`, either is said there, so the reading is
 * visible (`'02:30' does not exist on 2027-03-14 in America/New_York …`).
 */
export function epochOfWallClock(
  fields: { year: number; month: number; day: number; hour?: number; minute?: number; second?: number },
  timeZone: string,
  notes?: string[],
): number {
  const asUtc = utcEpoch(
    fields.year,
    fields.month - 1,
    fields.day,
    fields.hour ?? 0,
    fields.minute ?? 0,
    fields.second ?? 0,
  );
  const before = asUtc - offsetMsAt(asUtc - 86_400_000, timeZone);
  const after = asUtc - offsetMsAt(asUtc + 86_400_000, timeZone);
  const candidates = [before, after].filter((epoch) => {
    const wall = wallClockOf(epoch, timeZone);
    return utcEpoch(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second) === asUtc;
  });
  const normalised = new Date(asUtc);
  const time = `'${pad(normalised.getUTCHours())}:${pad(normalised.getUTCMinutes())}'`;
  const date = normalised.toISOString().slice(0, 10);
  if (candidates.length > 0) {
    const [first, second] = [Math.min(...candidates), Math.max(...candidates)];
    if (first !== second)
      notes?.push(
        `${time} happens twice on ${date} in ${timeZone} (the clocks go back): the first, ${isoInZone(first, timeZone)}, is taken; the second is ${isoInZone(second, timeZone)}.`,
      );
    return first;
  }
  // In a DST gap: the earlier offset read forward lands after the jump.
  const moved = Math.max(before, after);
  notes?.push(
    `${time} does not exist on ${date} in ${timeZone} (the clocks jump forward): it is read as ${isoInZone(moved, timeZone)}.`,
  );
  return moved;
}

/** The civil date `days` after the given one (negative goes back), as plain fields. */
export function addDays(date: { year: number; month: number; day: number }, days: number) {
  const moved = new Date(utcEpoch(date.year, date.month - 1, date.day + days));
  return {
    year: moved.getUTCFullYear(),
    month: moved.getUTCMonth() + 1,
    day: moved.getUTCDate(),
    weekday: moved.getUTCDay(),
  };
}

export function daysInMonth(year: number, month: number): number {
  return new Date(utcEpoch(year, month, 0)).getUTCDate();
}

function pad(value: number, width = 2): string {
  return `${value < 0 ? '-' : ''}${String(Math.abs(value)).padStart(width, '0')}`;
}

function offsetText(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const absolute = Math.abs(minutes);
  return `${sign}${pad(Math.floor(absolute / 60))}:${pad(absolute % 60)}`;
}

/** The zone's offset from UTC at an instant, as ISO 8601 writes it: `+09:00`, `-04:00`, `+00:00`. */
export function offsetTextAt(epochMs: number, timeZone: string): string {
  return offsetText(offsetMinutesAt(epochMs, timeZone));
}

/** ISO 8601 with the zone's offset at that instant: `2026-11-24T15:00:00+09:00`. */
export function isoInZone(epochMs: number, timeZone: string): string {
  const wall = wallClockOf(epochMs, timeZone);
  return `${pad(wall.year, 4)}-${pad(wall.month)}-${pad(wall.day)}T${pad(wall.hour)}:${pad(wall.minute)}:${pad(wall.second)}${offsetTextAt(epochMs, timeZone)}`;
}

/** The English name of the instant's day of the week in the zone: `Tuesday`. */
export function weekdayNameAt(epochMs: number, timeZone: string): string {
  return weekdayNames[wallClockOf(epochMs, timeZone).weekday] as string;
}

/** `20261124T150000`, the local form RFC 5545 uses after `DTSTART;TZID=…:`. */
export function rfc5545Stamp(epochMs: number, timeZone: string): string {
  const wall = wallClockOf(epochMs, timeZone);
  return `${pad(wall.year, 4)}${pad(wall.month)}${pad(wall.day)}T${pad(wall.hour)}${pad(wall.minute)}${pad(wall.second)}`;
}
