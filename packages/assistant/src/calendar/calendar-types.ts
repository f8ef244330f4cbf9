/** One occurrence of an event as the calendar tools answer it. */
export interface CalendarOccurrence {
  /** The event's UID: what calendar__delete_event takes (a recurring event's occurrences share it). */
  id: string;
  title: string;
  /** ISO 8601 with the offset of the answer's zone, or YYYY-MM-DD for an all-day event. */
  start: string;
  end: string;
  allDay: boolean;
  /** The zone the event was written in (TZID), when it has one. */
  eventTimeZone?: string;
  location?: string;
  notes?: string;
  calendar: string;
  recurring?: true;
  startMs: number;
}

/** A calendar of a backend: its display name and where it lives. */
export interface CalendarRef {
  name: string;
  /** Server URL of the collection, or the file path. */
  location: string;
  /** Whether events can be written to it (a CalDAV collection that holds VEVENTs; the file). */
  writable: boolean;
}
