import { GoondanError } from '@goondan/core/errors';
import type ICALNamespace from 'ical.js';
import { epochOfWallClock, isoInZone } from '../when/zoned-time.ts';
import type { CalendarOccurrence } from './calendar-types.ts';
import { ianaZoneOf } from './event-zone.ts';
import { type Ical, loadIcal } from './ical-module.ts';

type Component = InstanceType<typeof ICALNamespace.Component>;
type Time = InstanceType<typeof ICALNamespace.Time>;

/** Occurrences a single recurring event may be stepped through before the expansion stops (a daily event of 50 years). */
const MAX_STEPS = 20_000;
const NOTES_MAX_CHARS = 500;
const DAY = 86_400_000;
/** How far an overridden occurrence (RECURRENCE-ID) may be moved from its slot and still be found near the range. */
const MAX_OVERRIDE_SHIFT = 31 * DAY;

export interface ReadEventsOptions {
  fromMs: number;
  toMs: number;
  /** Zone of floating times and of the answer's ISO strings. */
  timeZone: string;
  calendar: string;
}

export interface ReadEventsResult {
  occurrences: CalendarOccurrence[];
  notes: string[];
}

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

/** Parses iCalendar text; unreadable text is E_CALENDAR_DATA_INVALID naming where it came from. */
export function parseCalendarText(ICAL: Ical, text: string, source: string): Component {
  try {
    return new ICAL.Component(ICAL.parse(text) as unknown[]);
  } catch (error) {
    throw new GoondanError(
      'E_CALENDAR_DATA_INVALID',
      `${source} is not readable iCalendar: ${(error as Error).message.slice(0, 200)}`,
      {
        suggestion:
          'Check the file is an .ics calendar (BEGIN:VCALENDAR … END:VCALENDAR); fix or replace the broken part.',
      },
    );
  }
}

/** A time as an instant: UTC, a TZID (IANA, or a VTIMEZONE of the same calendar), else floating in `zone`. */
function instantOf(ICAL: Ical, time: Time, tzid: string | undefined, zones: Map<string, Component>, zone: string) {
  const fields = {
    year: time.year,
    month: time.month,
    day: time.day,
    hour: time.hour,
    minute: time.minute,
    second: time.second,
  };
  if (time.zone === ICAL.Timezone.utcTimezone)
    return { ms: Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second) };
  if (tzid !== undefined) {
    const iana = ianaZoneOf(tzid);
    if (iana) return { ms: epochOfWallClock(fields, iana), zone: iana };
    const vtimezone = zones.get(tzid);
    if (vtimezone) {
      const local = ICAL.Time.fromData({ ...fields, isDate: false }, new ICAL.Timezone(vtimezone));
      return { ms: local.toUnixTime() * 1000, zone: tzid };
    }
  }
  return { ms: epochOfWallClock(fields, zone), floating: tzid === undefined, unknownZone: tzid };
}

function dateText(time: Time): string {
  return `${pad(time.year, 4)}-${pad(time.month)}-${pad(time.day)}`;
}

/**
 * The occurrences of the events in an iCalendar text that overlap [fromMs, toMs): recurring events are expanded
 * (RRULE, RDATE, EXDATE, and RECURRENCE-ID overrides), times with a TZID read in that zone, floating ones in
 * `timeZone`. Text (Korean included) is kept as written.
 */
export async function readEvents(text: string, source: string, options: ReadEventsOptions): Promise<ReadEventsResult> {
  const ICAL = await loadIcal();
  const root = parseCalendarText(ICAL, text, source);
  try {
    return expand(ICAL, root, options);
  } catch (error) {
    if (error instanceof GoondanError) throw error;
    // ical.js reads a value when it is first asked for: a date such as 2027-13-45 fails here, not in parse.
    throw new GoondanError(
      'E_CALENDAR_DATA_INVALID',
      `${source} has an event that cannot be read: ${(error as Error).message.slice(0, 200)}`,
      { suggestion: 'Fix or remove the broken event (its DTSTART, DTEND, RRULE or EXDATE) in the calendar.' },
    );
  }
}

function expand(ICAL: Ical, root: Component, options: ReadEventsOptions): ReadEventsResult {
  const zones = new Map<string, Component>();
  for (const vtimezone of root.getAllSubcomponents('vtimezone')) {
    const tzid = vtimezone.getFirstPropertyValue('tzid');
    if (typeof tzid === 'string') zones.set(tzid, vtimezone);
  }
  const byUid = new Map<string, { master?: Component; exceptions: Component[] }>();
  for (const vevent of root.getAllSubcomponents('vevent')) {
    const uid = String(vevent.getFirstPropertyValue('uid') ?? '');
    const entry = byUid.get(uid) ?? { exceptions: [] };
    if (vevent.hasProperty('recurrence-id')) entry.exceptions.push(vevent);
    else entry.master = vevent;
    byUid.set(uid, entry);
  }
  const notes = new Set<string>();
  const occurrences: CalendarOccurrence[] = [];
  const zone = options.timeZone;

  const add = (uid: string, item: Component, start: Time, end: Time | null, recurring: boolean) => {
    const startTzid = item.getFirstProperty('dtstart')?.getParameter('tzid') as string | undefined;
    const endTzid = (item.getFirstProperty('dtend')?.getParameter('tzid') as string | undefined) ?? startTzid;
    const allDay = start.isDate;
    const begin = instantOf(ICAL, start, startTzid, zones, zone);
    if ('unknownZone' in begin && begin.unknownZone)
      notes.add(`Time zone '${begin.unknownZone}' is unknown and has no VTIMEZONE; its times were read in ${zone}.`);
    let endMs: number;
    if (end) endMs = instantOf(ICAL, end, endTzid, zones, zone).ms;
    else endMs = allDay ? begin.ms + 86_400_000 : begin.ms;
    if (!(begin.ms < options.toMs && Math.max(endMs, begin.ms + 1) > options.fromMs)) return;
    const title = String(item.getFirstPropertyValue('summary') ?? '(no title)');
    const location = item.getFirstPropertyValue('location');
    const description = item.getFirstPropertyValue('description');
    const occurrence: CalendarOccurrence = {
      id: uid,
      title,
      start: allDay ? dateText(start) : isoInZone(begin.ms, zone),
      end: allDay ? (end ? dateText(end) : dateText(start)) : isoInZone(endMs, zone),
      allDay,
      calendar: options.calendar,
      startMs: begin.ms,
    };
    if ('zone' in begin && begin.zone) occurrence.eventTimeZone = begin.zone;
    if (typeof location === 'string' && location !== '') occurrence.location = location;
    if (typeof description === 'string' && description !== '')
      occurrence.notes =
        description.length > NOTES_MAX_CHARS ? `${description.slice(0, NOTES_MAX_CHARS)}…` : description;
    if (recurring) occurrence.recurring = true;
    occurrences.push(occurrence);
  };

  for (const [uid, { master, exceptions }] of byUid) {
    if (!master) {
      for (const lone of exceptions) {
        const event = new ICAL.Event(lone);
        add(uid, lone, event.startDate, event.endDate ?? null, true);
      }
      continue;
    }
    const event = new ICAL.Event(master);
    if (!event.startDate) {
      // RFC 5545 requires DTSTART: a rule without one has no first occurrence (it is not "from now").
      notes.add(
        `'${String(master.getFirstPropertyValue('summary') ?? uid)}' has no start time (DTSTART) and was left out.`,
      );
      continue;
    }
    if (!event.isRecurring()) {
      add(
        uid,
        master,
        event.startDate,
        master.hasProperty('dtend') || master.hasProperty('duration') ? event.endDate : null,
        false,
      );
      continue;
    }
    for (const exception of exceptions) event.relateException(exception);
    const iterator = event.iterator();
    const longest = Math.max(0, event.duration ? event.duration.toSeconds() * 1000 : 0) + MAX_OVERRIDE_SHIFT;
    let steps = 0;
    for (let next = iterator.next(); next; next = iterator.next()) {
      if (++steps > MAX_STEPS) {
        notes.add(
          `'${String(master.getFirstPropertyValue('summary') ?? uid)}' repeats too often to expand past ${MAX_STEPS} occurrences; later ones are left out.`,
        );
        break;
      }
      // The series is stepped in its own wall-clock time, within a day of any zone's offset of UTC: occurrences
      // far before the range are skipped without converting them, and stepping stops after it.
      const naive = Date.UTC(next.year, next.month - 1, next.day, next.hour, next.minute, next.second);
      if (naive >= options.toMs + 2 * DAY) break;
      if (naive + longest < options.fromMs - 2 * DAY) continue;
      const details = event.getOccurrenceDetails(next);
      add(uid, details.item.component, details.startDate, details.endDate, true);
    }
  }
  occurrences.sort((a, b) => a.startMs - b.startMs || a.title.localeCompare(b.title));
  return { occurrences, notes: [...notes] };
}
