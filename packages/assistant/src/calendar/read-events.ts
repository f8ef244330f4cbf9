import { GoondanError } from '@goondan/core/errors';
import type ICALNamespace from 'ical.js';
import { epochOfWallClock, isoInZone, utcEpoch } from '../when/zoned-time.ts';
import type { CalendarOccurrence } from './calendar-types.ts';
import { ianaZoneOf } from './event-zone.ts';
import { type Ical, loadIcal } from './ical-module.ts';
import { oddRuleParts, rulesOfEvents } from './rrule-parts.ts';

type Component = InstanceType<typeof ICALNamespace.Component>;
type Time = InstanceType<typeof ICALNamespace.Time>;

/** Occurrences a single recurring event may be stepped through before the expansion stops (a daily event of 50 years). */
const MAX_STEPS = 20_000;
/** Steps of every repeating event of one listing together (one file, or every object of the server). */
export const MAX_LISTING_STEPS = 100_000;
const NOTES_MAX_CHARS = 500;
const HOUR = 3_600_000;
const DAY = 86_400_000;

export interface ReadEventsOptions {
  fromMs: number;
  toMs: number;
  /** Zone of floating times and of the answer's ISO strings. */
  timeZone: string;
  calendar: string;
  /**
   * The steps left for the repeating events of the whole listing, shared by its readEvents calls (default: a budget
   * of MAX_LISTING_STEPS for this text). The first event cut short names the note.
   */
  budget?: StepBudget;
}

/** What is left of a listing's MAX_LISTING_STEPS, and the first event it could not step in full. */
export interface StepBudget {
  steps: number;
  cut?: string;
}

export const stepBudget = (): StepBudget => ({ steps: MAX_LISTING_STEPS });

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
    return { ms: utcEpoch(time.year, time.month - 1, time.day, time.hour, time.minute, time.second) };
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

/** A time's wall-clock fields as if they were UTC (how a series is stepped, whatever its zone). */
function naiveMs(time: Time): number {
  return utcEpoch(time.year, time.month - 1, time.day, time.hour, time.minute, time.second);
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
    const result = expand(ICAL, root, options);
    return { ...result, notes: [...result.notes, ...oddRuleNotes(text)] };
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

function startTzidOf(item: Component): string | undefined {
  return item.getFirstProperty('dtstart')?.getParameter('tzid') as string | undefined;
}

/** Notes on rules RFC 5545 does not allow (INTERVAL=0, COUNT=-1) that ical.js reads anyway, saying how. */
function oddRuleNotes(text: string): string[] {
  const notes: string[] = [];
  for (const { title, rules } of rulesOfEvents(text))
    for (const rule of rules)
      for (const { part, value, readAs } of oddRuleParts(rule))
        if (readAs)
          notes.push(
            `'${title}' repeats with ${part}=${value}, which RFC 5545 does not allow (a whole number from 1); it was read as ical.js reads it: ${readAs}.`,
          );
  return notes;
}

/** Seconds of one step of a rule whose steps all have the same length in wall-clock time, else undefined. */
const fixedStepSeconds: Record<string, number> = {
  SECONDLY: 1,
  MINUTELY: 60,
  HOURLY: 3600,
  DAILY: 86_400,
  WEEKLY: 7 * 86_400,
};

/**
 * Where to start stepping a series so the occurrences from `notBeforeNaive` on are all met: a later occurrence of the
 * series itself, when its one rule has steps of one length (FREQ=SECONDLY to WEEKLY, any INTERVAL, UNTIL) and nothing
 * that makes the n-th occurrence depend on the ones before (COUNT, a BYxxx part, RDATE). Such a rule's occurrences
 * are DTSTART + k × step in the event's wall-clock time, as ical.js steps them; EXDATE and RECURRENCE-ID are applied by
 * the iterator from wherever it starts. undefined to step from DTSTART.
 */
function laterStart(ICAL: Ical, master: Component, start: Time, notBeforeNaive: number): Time | undefined {
  const rules = master.getAllProperties('rrule');
  if (rules.length !== 1 || master.hasProperty('rdate')) return undefined;
  const rule = rules[0]?.getFirstValue() as InstanceType<typeof ICALNamespace.Recur> | undefined;
  const unit = rule ? fixedStepSeconds[rule.freq] : undefined;
  if (!rule || unit === undefined || rule.count || Object.keys(rule.parts).length > 0) return undefined;
  const stepMs = unit * Math.max(1, rule.interval) * 1000;
  const naive = utcEpoch(start.year, start.month - 1, start.day, start.hour, start.minute, start.second);
  const steps = Math.floor((notBeforeNaive - naive) / stepMs);
  if (steps <= 0) return undefined;
  const at = new Date(naive + steps * stepMs);
  const fields = {
    year: at.getUTCFullYear(),
    month: at.getUTCMonth() + 1,
    day: at.getUTCDate(),
    ...(start.isDate
      ? { isDate: true }
      : { hour: at.getUTCHours(), minute: at.getUTCMinutes(), second: at.getUTCSeconds(), isDate: false }),
  };
  return ICAL.Time.fromData(fields, start.zone);
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
  // Each step is synchronous work: without a bound for all events together, 300 events repeating every second
  // (20,000 steps each) held the process for minutes, past the tool's timeout.
  const budget = options.budget ?? stepBudget();
  const outOfSteps = (title: string) => {
    budget.cut ??= title;
    notes.add(
      `The repeating events took more than ${MAX_LISTING_STEPS} steps to list together: '${budget.cut}' and those after it are missing from this answer, in part or in full; ask for fewer days or one calendar.`,
    );
  };

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
    if (budget.steps <= 0) {
      outOfSteps(String(master.getFirstPropertyValue('summary') ?? uid));
      continue;
    }
    for (const exception of exceptions) event.relateException(exception);
    // How long after its slot an occurrence may still overlap the range: the event's length, or an overridden
    // occurrence's end after its RECURRENCE-ID (moved later, or made longer), with a day for a zone between them.
    // An override moved earlier may start in the range from a slot after it (`earlier`).
    let longest = Math.max(0, event.duration ? event.duration.toSeconds() * 1000 : 0);
    let earlier = 0;
    for (const exception of exceptions) {
      const moved = new ICAL.Event(exception);
      const slot = exception.getFirstPropertyValue('recurrence-id') as Time | null;
      if (!slot || !moved.startDate) continue;
      longest = Math.max(longest, naiveMs(moved.endDate ?? moved.startDate) - naiveMs(slot) + DAY);
      earlier = Math.max(earlier, naiveMs(slot) - naiveMs(moved.startDate) + DAY);
    }
    // Where a simple rule may jump to (laterStart): the range's start in the event's wall-clock time, less what may
    // overlap it and two hours for a DST change between.
    const wallOfFrom = new Date(options.fromMs);
    const asWall = ICAL.Time.fromData(
      {
        year: wallOfFrom.getUTCFullYear(),
        month: wallOfFrom.getUTCMonth() + 1,
        day: wallOfFrom.getUTCDate(),
        hour: wallOfFrom.getUTCHours(),
        minute: wallOfFrom.getUTCMinutes(),
        second: wallOfFrom.getUTCSeconds(),
        isDate: false,
      },
      event.startDate.zone,
    );
    const offset = options.fromMs - instantOf(ICAL, asWall, startTzidOf(master), zones, zone).ms;
    const later = laterStart(ICAL, master, event.startDate, options.fromMs + offset - 2 * HOUR - longest);
    // The series is stepped in its own wall-clock time, within a day of any zone's offset of UTC: occurrences far
    // before the range are skipped without converting them, and stepping stops after it. (The iterator applies
    // UNTIL, EXDATE and overrides from wherever it starts.)
    const iterator = event.iterator(later);
    let steps = 0;
    for (let next = iterator.next(); next; next = iterator.next()) {
      const naive = naiveMs(next);
      if (naive >= options.toMs + 2 * DAY + earlier) break;
      if (++steps > MAX_STEPS) {
        const title = String(master.getFirstPropertyValue('summary') ?? uid);
        const stopped = next.isDate
          ? dateText(next)
          : isoInZone(instantOf(ICAL, next, startTzidOf(master), zones, zone).ms, zone);
        notes.add(
          naive < options.fromMs
            ? `'${title}' repeats too often to step from its start (${dateText(event.startDate)}) to the listed range in ${MAX_STEPS} steps: its occurrences in the range are missing from this answer.`
            : `'${title}' repeats too often to list in full (${MAX_STEPS} steps): its occurrences from ${stopped} on are missing from this answer.`,
        );
        break;
      }
      if (--budget.steps < 0) {
        outOfSteps(String(master.getFirstPropertyValue('summary') ?? uid));
        break;
      }
      if (naive + longest < options.fromMs - 2 * DAY) continue;
      const details = event.getOccurrenceDetails(next);
      add(uid, details.item.component, details.startDate, details.endDate, true);
    }
  }
  occurrences.sort((a, b) => a.startMs - b.startMs || a.title.localeCompare(b.title));
  return { occurrences, notes: [...notes] };
}
