import { GoondanError } from '@goondan/core/errors';
import { wallClockOf } from '../when/zoned-time.ts';
import { foldLines } from './fold-lines.ts';
import { loadIcal } from './ical-module.ts';
import { oddRuleParts } from './rrule-parts.ts';
import { vtimezoneFor } from './vtimezone.ts';

export interface NewEvent {
  uid: string;
  title: string;
  startMs: number;
  endMs: number;
  allDay: boolean;
  /** IANA zone the times are written in (DTSTART;TZID=…), with its VTIMEZONE. */
  timeZone: string;
  location?: string;
  notes?: string;
  /** An RRULE value (`FREQ=WEEKLY;BYDAY=MO;…`) for a repeating event. */
  rrule?: string;
  nowMs: number;
}

/**
 * The iCalendar object of a new event: times written in its zone with a matching VTIMEZONE (so clients that
 * do not know IANA names agree), UTF-8 text escaped and folded by ical.js.
 */
export async function buildEventCalendar(event: NewEvent): Promise<string> {
  // ical.js would write INTERVAL=0 as no INTERVAL (every day) and COUNT=0 as no COUNT (forever): never written.
  const odd = event.rrule ? oddRuleParts(event.rrule) : [];
  if (odd.length > 0)
    throw new GoondanError(
      'E_TOOL_INVALID_ARGS',
      `The repetition has ${odd.map(({ part, value }) => `${part}=${value}`).join(' and ')}; INTERVAL and COUNT are whole numbers from 1.`,
      { suggestion: "Say how often it repeats with a whole number from 1: 'every 2 hours', 'every monday at 10am'." },
    );
  const ICAL = await loadIcal();
  const calendar = new ICAL.Component(['vcalendar', [], []]);
  calendar.updatePropertyWithValue('prodid', '-//Goondan//assistant calendar//EN');
  calendar.updatePropertyWithValue('version', '2.0');
  const vevent = new ICAL.Component('vevent');
  vevent.updatePropertyWithValue('uid', event.uid);
  vevent.updatePropertyWithValue('dtstamp', ICAL.Time.fromJSDate(new Date(event.nowMs), true));
  const timeOf = (ms: number, dateOnly: boolean) => {
    const wall = wallClockOf(ms, event.timeZone);
    // ical.js writes a year below 1000 unpadded (DTSTART:1-01-01TT9:00:0), which no reader, ical.js included, reads
    // back: one such event made the whole calendar file unreadable.
    if (wall.year < 1000)
      throw new GoondanError(
        'E_WHEN_INVALID',
        `The event would be in the year ${wall.year}; a calendar event is written with a four-digit year, from 1000.`,
        { suggestion: 'Give a date from the year 1000 on, e.g. 2030-05-01T09:00:00+09:00.' },
      );
    return ICAL.Time.fromData(
      dateOnly
        ? { year: wall.year, month: wall.month, day: wall.day, isDate: true }
        : {
            year: wall.year,
            month: wall.month,
            day: wall.day,
            hour: wall.hour,
            minute: wall.minute,
            second: wall.second,
          },
    );
  };
  for (const [name, ms] of [
    ['dtstart', event.startMs],
    ['dtend', event.endMs],
  ] as const) {
    const property = new ICAL.Property(name);
    property.setValue(timeOf(ms, event.allDay));
    if (!event.allDay) property.setParameter('tzid', event.timeZone);
    vevent.addProperty(property);
  }
  vevent.updatePropertyWithValue('summary', event.title);
  if (event.location) vevent.updatePropertyWithValue('location', event.location);
  if (event.notes) vevent.updatePropertyWithValue('description', event.notes);
  if (event.rrule) vevent.updatePropertyWithValue('rrule', ICAL.Recur.fromString(event.rrule));
  if (!event.allDay)
    calendar.addSubcomponent(new ICAL.Component(ICAL.parse(vtimezoneFor(event.timeZone, event.startMs)) as unknown[]));
  calendar.addSubcomponent(vevent);
  return foldLines(calendar.toString());
}
