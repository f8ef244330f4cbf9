import { randomUUID } from 'node:crypto';
import type { ToolContext } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';
import { readWhen } from '../reminders/read-when.ts';
import { addDays, checkTimeZone, epochOfWallClock, hostTimeZone, isoInZone, wallClockOf } from '../when/zoned-time.ts';
import { buildEventCalendar } from './build-event.ts';
import type { CalendarBackendSession } from './calendar-backend.ts';
import type { CalendarOccurrence, CalendarRef } from './calendar-types.ts';
import { readEvents, stepBudget } from './read-events.ts';
import { oddRuleParts } from './rrule-parts.ts';
import { withCalendarBackend } from './with-calendar-backend.ts';

type Ctx = Parameters<typeof withCalendarBackend>[0];

const DEFAULT_MAX_EVENTS = 50;
const HOUR = 3_600_000;

/** The zone of a call: its own, else the Tool's config.timeZone, else the host's (always named in answers). */
export function calendarZone(ctx: Pick<ToolContext, 'config'>, requested?: string): string {
  const configured = typeof ctx.config.timeZone === 'string' ? ctx.config.timeZone : undefined;
  return checkTimeZone(requested ?? configured ?? hostTimeZone());
}

/** The calendars a call means: the one named (case ignored), or all of them. */
async function chosenCalendars(session: CalendarBackendSession, name?: string): Promise<CalendarRef[]> {
  const calendars = await session.calendars();
  if (name === undefined || name.trim() === '') {
    if (calendars.length > 0) return calendars;
    throw new GoondanError('E_CALENDAR_NOT_FOUND', 'The account has no calendar that holds events.', {
      suggestion: 'Create a calendar in the calendar service (web or app) first, then try again.',
    });
  }
  const wanted = name.trim().normalize('NFC').toLowerCase();
  const found = calendars.filter((calendar) => calendar.name.normalize('NFC').toLowerCase() === wanted);
  if (found.length > 0) return found;
  const names = calendars.slice(0, 20).map((calendar) => `'${calendar.name}'`);
  throw new GoondanError('E_CALENDAR_NOT_FOUND', `No calendar is called '${name}'.`, {
    suggestion:
      names.length > 0
        ? `Calendars: ${names.join(', ')}. Use one of these names or leave calendar_name out.`
        : 'The account has no calendars.',
  });
}

function maxEvents(ctx: Pick<ToolContext, 'config'>): number {
  const configured = ctx.config.maxEvents;
  return typeof configured === 'number' && configured > 0 ? Math.min(Math.floor(configured), 500) : DEFAULT_MAX_EVENTS;
}

function startOfDay(ms: number, zone: string): number {
  const wall = wallClockOf(ms, zone);
  return epochOfWallClock({ year: wall.year, month: wall.month, day: wall.day }, zone);
}

function dayAfter(ms: number, zone: string, days: number): number {
  const wall = wallClockOf(ms, zone);
  return epochOfWallClock(addDays({ year: wall.year, month: wall.month, day: wall.day }, days), zone);
}

/** calendar__list_events: the occurrences from the start of `from`'s day (default today) through `days_ahead` more days. */
export async function listEvents(
  ctx: Ctx,
  input: { days_ahead?: number; calendar_name?: string; from?: string; timeZone?: string },
) {
  const zone = calendarZone(ctx, input.timeZone);
  const days = input.days_ahead ?? 7;
  if (!Number.isInteger(days) || days < 0 || days > 366)
    throw new GoondanError('E_TOOL_INVALID_ARGS', `days_ahead must be a whole number from 0 to 366, got ${days}.`, {
      suggestion: 'Use 0 for today only, 7 for the coming week.',
    });
  const now = Date.now();
  let anchor = now;
  if (input.from !== undefined) {
    const when = await readWhen(input.from, now, zone);
    anchor = when.kind === 'instant' ? when.epochMs : when.firstEpochMs;
  }
  const fromMs = startOfDay(anchor, zone);
  const toMs = dayAfter(anchor, zone, days + 1);
  return withCalendarBackend(ctx, async (session, kind) => {
    const calendars = await chosenCalendars(session, input.calendar_name);
    const notes = new Set<string>();
    const occurrences: CalendarOccurrence[] = [];
    const budget = stepBudget();
    for (const calendar of calendars) {
      for (const object of await session.objects(calendar, { fromMs, toMs })) {
        try {
          const read = await readEvents(object.text, object.source, {
            fromMs,
            toMs,
            timeZone: zone,
            calendar: calendar.name,
            budget,
          });
          occurrences.push(...read.occurrences);
          for (const note of read.notes) notes.add(note);
        } catch (error) {
          if (kind === 'file' || !(error instanceof GoondanError)) throw error;
          // The message names the object's URL on the server and what could not be read in it.
          notes.add(`An unreadable event in '${calendar.name}' was skipped: ${error.message}`);
        }
      }
    }
    occurrences.sort((a, b) => a.startMs - b.startMs);
    const limit = maxEvents(ctx);
    const events = occurrences.slice(0, limit).map(({ startMs: _, ...event }) => event);
    if (occurrences.length > limit)
      notes.add(`${occurrences.length - limit} more events are not shown; ask for fewer days or one calendar.`);
    return {
      timeZone: zone,
      from: isoInZone(fromMs, zone),
      to: isoInZone(toMs, zone),
      calendars: calendars.map((calendar) => calendar.name),
      count: occurrences.length,
      events,
      ...(notes.size > 0 ? { notes: [...notes] } : {}),
    };
  });
}

/**
 * Text as iCalendar may hold it: RFC 5545 TEXT has no control characters but tab and (escaped) line feed, so a CR
 * is a line break, and a one-line field (title, place) has none. ical.js escapes LF only: a CR written as it was
 * would end the property in every reader that breaks lines at CR (`\rATTENDEE:…` adds one), and servers refuse it.
 */
function iCalendarText(text: string, multiline: boolean): string {
  const lines = text.replace(/\r\n?/g, '\n');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed.
  const clean = lines.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
  return multiline ? clean : clean.replace(/\s*\n\s*/g, ' ');
}

function checkedText(value: unknown, field: string, max: number, required: boolean): string | undefined {
  const text =
    typeof value === 'string'
      ? iCalendarText(value, field === 'notes')
          .trim()
          .normalize('NFC')
      : '';
  if (text === '') {
    if (!required) return undefined;
    throw new GoondanError('E_TOOL_INVALID_ARGS', `'${field}' is empty.`, { suggestion: `Give the event a ${field}.` });
  }
  if (text.length > max)
    throw new GoondanError('E_TOOL_INVALID_ARGS', `'${field}' has ${text.length} characters; at most ${max}.`, {
      suggestion: `Shorten the ${field}.`,
    });
  return text;
}

/**
 * start_date as it was given, unless it is RFC 5545 rule text (`RRULE:FREQ=DAILY;INTERVAL=0`): the tool reads times
 * and repetitions in words and writes the RRULE itself, so such text is refused saying so, and what in it is wrong.
 */
function refuseRuleText(text: string): string {
  const rule = /(?:^|\s|:)(FREQ=[^\s]*)/i.exec(text)?.[1];
  if (!rule && !/^\s*(?:RRULE|DTSTART|RDATE|EXDATE)[;:]/i.test(text)) return text;
  const odd = rule ? oddRuleParts(rule).map(({ part, value }) => `${part}=${value}`) : [];
  throw new GoondanError(
    'E_TOOL_INVALID_ARGS',
    `start_date is iCalendar rule text ('${text.slice(0, 80)}'), which calendar__create_event does not take${odd.length > 0 ? `; besides, ${odd.join(' and ')} is no repetition (INTERVAL and COUNT are whole numbers from 1)` : ''}.`,
    {
      suggestion:
        "Give the first time and the repetition in words and the tool writes the RRULE: 'every monday at 10am', 'every weekday at 9', 'every 2 hours', 'every month on the 1st at 9', '매주 화요일 저녁 7시', '30분마다'.",
    },
  );
}

/** calendar__create_event: one event (or a repeating one, from words such as "매주 월요일 10시") in a calendar. */
export async function createEvent(
  ctx: Ctx,
  input: {
    title: string;
    start_date: string;
    end_date?: string;
    calendar_name?: string;
    location?: string;
    notes?: string;
    timeZone?: string;
    all_day?: boolean;
  },
) {
  const title = checkedText(input.title, 'title', 500, true) as string;
  const location = checkedText(input.location, 'location', 500, false);
  const description = checkedText(input.notes, 'notes', 8000, false);
  const zone = calendarZone(ctx, input.timeZone);
  const now = Date.now();
  const start = await readWhen(refuseRuleText(String(input.start_date)), now, zone);
  const allDay = input.all_day === true;
  // A whole day has no time of day to assume.
  const notes = start.notes.filter((note) => !(allDay && note.startsWith('No time of day was given')));
  let startMs = start.kind === 'instant' ? start.epochMs : start.firstEpochMs;
  let rrule = start.kind === 'recurring' ? /RRULE:([^\n]+)/.exec(start.rrule)?.[1] : undefined;
  let repeats = start.kind === 'recurring' ? start.description : undefined;
  if (allDay && rrule) {
    // RFC 5545: the rule of a DATE start has no BYHOUR, BYMINUTE or BYSECOND; with them ical.js (and other readers)
    // list no occurrence at all, so the event was created and never shown. It repeats by days at least.
    if (/FREQ=(?:HOURLY|MINUTELY|SECONDLY)/.test(rrule))
      throw new GoondanError('E_TOOL_INVALID_ARGS', `An all-day event cannot repeat ${repeats}.`, {
        suggestion:
          "Repeat it by days, weeks or months ('every monday', 'every day', '매월 1일'), or leave all_day out.",
      });
    rrule = rrule.replace(/;BY(?:HOUR|MINUTE|SECOND)=[^;]*/g, '');
    repeats = repeats?.replace(/ at \d{2}:\d{2}/, '');
  }
  let endMs: number;
  if (input.end_date !== undefined) {
    const end = await readWhen(String(input.end_date), now, zone);
    if (end.kind !== 'instant')
      throw new GoondanError('E_TOOL_INVALID_ARGS', 'end_date must be one time, not a repetition.', {
        suggestion:
          'Put the repetition in start_date ("every monday at 10am") and the end time of the first one in end_date.',
      });
    notes.push(...end.notes);
    endMs = end.epochMs;
  } else endMs = startMs + HOUR;
  if (allDay) {
    startMs = startOfDay(startMs, zone);
    endMs = input.end_date !== undefined ? dayAfter(endMs, zone, 1) : dayAfter(startMs, zone, 1);
  }
  if (endMs <= startMs)
    throw new GoondanError(
      'E_TOOL_INVALID_ARGS',
      `The event ends (${isoInZone(endMs, zone)}) before it starts (${isoInZone(startMs, zone)}).`,
      {
        suggestion: 'Give an end_date after start_date, or leave it out for one hour.',
      },
    );
  const uid = randomUUID();
  const text = await buildEventCalendar({
    uid,
    title,
    startMs,
    endMs,
    allDay,
    timeZone: zone,
    nowMs: now,
    ...(location ? { location } : {}),
    ...(description ? { notes: description } : {}),
    ...(rrule ? { rrule } : {}),
  });
  const configuredDefault = typeof ctx.config.defaultCalendar === 'string' ? ctx.config.defaultCalendar : undefined;
  return withCalendarBackend(ctx, async (session) => {
    const [calendar] = await chosenCalendars(session, input.calendar_name ?? configuredDefault);
    await session.create(calendar as CalendarRef, uid, text);
    const dateOf = (ms: number) => isoInZone(ms, zone).slice(0, 10);
    return {
      created: {
        id: uid,
        title,
        start: allDay ? dateOf(startMs) : isoInZone(startMs, zone),
        end: allDay ? dateOf(endMs) : isoInZone(endMs, zone),
        allDay,
        timeZone: zone,
        calendar: (calendar as CalendarRef).name,
        ...(location ? { location } : {}),
        ...(repeats ? { repeats } : {}),
      },
      ...(notes.length > 0 ? { notes } : {}),
    };
  });
}

/** calendar__delete_event: the event with this id (its UID; every occurrence of a repeating one). */
export async function deleteEvent(ctx: Ctx, input: { event_id: string; calendar_name?: string }) {
  const uid = String(input.event_id ?? '').trim();
  if (uid === '' || uid.length > 500)
    throw new GoondanError('E_TOOL_INVALID_ARGS', 'event_id must be the id calendar__list_events gave the event.', {
      suggestion: 'List the events first and pass the id of the one to delete.',
    });
  const zone = calendarZone(ctx);
  return withCalendarBackend(ctx, async (session) => {
    const calendars = await chosenCalendars(session, input.calendar_name);
    const removed = await session.remove(uid, calendars);
    if (!removed)
      throw new GoondanError(
        'E_CALENDAR_EVENT_NOT_FOUND',
        `No event has the id '${uid}'${input.calendar_name ? ` in '${input.calendar_name}'` : ''}.`,
        {
          suggestion: 'Use an id from calendar__list_events (the event may already be gone).',
        },
      );
    const summary = /^SUMMARY[^:]*:(.*)$/m.exec(removed.text.replace(/\r?\n[ \t]/g, ''))?.[1]?.trim();
    return {
      deleted: { id: uid, calendar: removed.calendar.name, ...(summary ? { title: unescapeText(summary) } : {}) },
      timeZone: zone,
    };
  });
}

function unescapeText(text: string): string {
  return text.replace(/\\([,;\\nN])/g, (_, char: string) => (char === 'n' || char === 'N' ? '\n' : char));
}
