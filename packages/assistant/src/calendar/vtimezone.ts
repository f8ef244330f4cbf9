import { epochOfWallClock, offsetMinutesAt, utcEpoch, wallClockOf } from '../when/zoned-time.ts';

const WEEK = 7 * 86_400_000;

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

function offsetText(minutes: number): string {
  const absolute = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${pad(Math.floor(absolute / 60))}${pad(absolute % 60)}`;
}

/** The instant (to the minute) in (low, high] at which the zone's offset changes, found by halving. */
function transitionBetween(low: number, high: number, timeZone: string): number {
  const before = offsetMinutesAt(low, timeZone);
  let a = low;
  let b = high;
  while (b - a > 60_000) {
    const middle = a + Math.floor((b - a) / 2);
    if (offsetMinutesAt(middle, timeZone) === before) a = middle;
    else b = middle;
  }
  return b;
}

/**
 * A VTIMEZONE for an IANA zone, from the host's zone data: one observance per offset change from the start of the
 * year before `aroundEpochMs` to the end of the year after it (RFC 5545 wants a VTIMEZONE for every TZID used), or
 * one fixed STANDARD observance for a zone without changes in that span.
 */
export function vtimezoneFor(timeZone: string, aroundEpochMs: number): string {
  const year = wallClockOf(aroundEpochMs, timeZone).year;
  const start = utcEpoch(year - 1, 0, 1);
  const end = utcEpoch(year + 2, 0, 1);
  const lines = ['BEGIN:VTIMEZONE', `TZID:${timeZone}`];
  let observances = 0;
  // Zones change their offset at most a few times a year, never twice within a week.
  for (let week = start; week < end; week += WEEK) {
    const from = offsetMinutesAt(week, timeZone);
    const to = offsetMinutesAt(week + WEEK, timeZone);
    if (from === to) continue;
    const at = transitionBetween(week, week + WEEK, timeZone);
    // DTSTART of an observance is the local time of the onset in the offset before it.
    const local = new Date(at + from * 60_000);
    const onset = `${pad(local.getUTCFullYear(), 4)}${pad(local.getUTCMonth() + 1)}${pad(local.getUTCDate())}T${pad(local.getUTCHours())}${pad(local.getUTCMinutes())}00`;
    const kind = to > from ? 'DAYLIGHT' : 'STANDARD';
    lines.push(
      `BEGIN:${kind}`,
      `DTSTART:${onset}`,
      `TZOFFSETFROM:${offsetText(from)}`,
      `TZOFFSETTO:${offsetText(to)}`,
      `END:${kind}`,
    );
    observances++;
  }
  if (observances === 0) {
    const offset = offsetText(offsetMinutesAt(aroundEpochMs, timeZone));
    lines.push(
      'BEGIN:STANDARD',
      'DTSTART:19700101T000000',
      `TZOFFSETFROM:${offset}`,
      `TZOFFSETTO:${offset}`,
      'END:STANDARD',
    );
  }
  lines.push('END:VTIMEZONE');
  return lines.join('\r\n');
}

/** `epochOfWallClock` re-exported for the calendar: the instant a zone's clocks show given fields. */
export { epochOfWallClock };
