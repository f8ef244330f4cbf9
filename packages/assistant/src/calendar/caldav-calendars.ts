import { GoondanError } from '@goondan/core/errors';
import type { DAVCalendar, DAVCalendarObject } from 'tsdav';
import type { PimBackend } from '../dav/dav-config.ts';
import { withDavClient } from '../dav/dav-session.ts';
import type { CalendarBackendSession } from './calendar-backend.ts';
import type { CalendarRef } from './calendar-types.ts';

type DavBackend = Extract<PimBackend, { type: 'dav' }>;
type Ctx = Parameters<typeof withDavClient>[0];

function displayName(calendar: DAVCalendar): string {
  const name = calendar.displayName;
  if (typeof name === 'string' && name.trim() !== '') return name.trim();
  return decodeURIComponent(new URL(calendar.url).pathname.split('/').filter(Boolean).pop() ?? 'calendar');
}

const utc = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function uidFilter(uid: string) {
  return [
    {
      'comp-filter': {
        _attributes: { name: 'VCALENDAR' },
        'comp-filter': {
          _attributes: { name: 'VEVENT' },
          'prop-filter': {
            _attributes: { name: 'UID' },
            'text-match': { _attributes: { collation: 'i;octet' }, _text: uid },
          },
        },
      },
    },
  ];
}

/**
 * Whether an iCalendar text holds an event whose UID is exactly `uid`. A CalDAV text-match is a substring match
 * (RFC 4791 9.7.5): the server's answer to the UID filter may hold other events, which must not be deleted.
 */
export function holdsUid(text: string, uid: string): boolean {
  return text
    .replace(/\r?\n[ \t]/g, '')
    .split(/\r?\n/)
    .some((line) => /^UID[;:]/i.test(line) && line.slice(line.indexOf(':') + 1).trim() === uid);
}

function checkStored(response: Response, what: string): void {
  if (response.ok) return;
  throw new GoondanError('E_DAV_REQUEST_FAILED', `The server refused to ${what} (HTTP ${response.status}).`, {
    suggestion: 'Check the account may write to this calendar (a read-only or shared calendar refuses changes).',
  });
}

/** Runs `work` with a CalDAV session: calendars are the account's collections that hold events. */
export async function withCalDav<T>(
  ctx: Ctx,
  backend: DavBackend,
  work: (session: CalendarBackendSession) => Promise<T>,
): Promise<T> {
  return withDavClient(ctx, backend, 'caldav', async (client) => {
    let listed: { ref: CalendarRef; dav: DAVCalendar }[] | undefined;
    const davOf = (ref: CalendarRef) =>
      listed?.find((entry) => entry.ref.location === ref.location)?.dav as DAVCalendar;
    const session: CalendarBackendSession = {
      async calendars() {
        listed ??= (await client.fetchCalendars())
          .filter((calendar) => !calendar.components || calendar.components.includes('VEVENT'))
          .map((dav) => ({ dav, ref: { name: displayName(dav), location: dav.url, writable: true } }));
        return listed.map((entry) => entry.ref);
      },
      async objects(calendar, range) {
        const objects = await client.fetchCalendarObjects({
          calendar: davOf(calendar),
          timeRange: { start: utc(range.fromMs), end: utc(range.toMs) },
        });
        return objects
          .filter((object) => typeof object.data === 'string')
          .map((object) => ({ text: object.data as string, source: object.url }));
      },
      async create(calendar, uid, text) {
        const response = await client.createCalendarObject({
          calendar: davOf(calendar),
          iCalString: text,
          filename: `${encodeURIComponent(uid)}.ics`,
        });
        checkStored(response, 'store the event');
      },
      async remove(uid, calendars) {
        for (const calendar of calendars) {
          const found: DAVCalendarObject[] = await client.fetchCalendarObjects({
            calendar: davOf(calendar),
            filters: uidFilter(uid),
          });
          const object = found.find((entry) => typeof entry.data === 'string' && holdsUid(entry.data, uid));
          if (!object) continue;
          checkStored(await client.deleteCalendarObject({ calendarObject: object }), 'delete the event');
          return { calendar, text: object.data as string };
        }
        return null;
      },
    };
    return work(session);
  });
}
