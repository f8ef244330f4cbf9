import type { CalendarRef } from './calendar-types.ts';

/** One iCalendar object of a calendar (a server resource, or the whole file). */
export interface CalendarObject {
  text: string;
  source: string;
}

/** What the calendar tools need from a place that keeps calendars (CalDAV server or ICS file). */
export interface CalendarBackendSession {
  calendars(): Promise<CalendarRef[]>;
  /** The objects of a calendar with an event overlapping the range (a backend may return more). */
  objects(calendar: CalendarRef, range: { fromMs: number; toMs: number }): Promise<CalendarObject[]>;
  /** Stores a new event object (a whole VCALENDAR holding one VEVENT and its VTIMEZONE). */
  create(calendar: CalendarRef, uid: string, text: string): Promise<void>;
  /** Deletes the event with this UID from the first of `calendars` holding it; its object's text, or null. */
  remove(uid: string, calendars: CalendarRef[]): Promise<{ calendar: CalendarRef; text: string } | null>;
}
