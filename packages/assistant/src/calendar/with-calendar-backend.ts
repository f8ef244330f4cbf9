import type { ToolContext } from '@goondan/core';
import { pimBackendOf } from '../dav/dav-config.ts';
import { withCalDav } from './caldav-calendars.ts';
import type { CalendarBackendSession } from './calendar-backend.ts';
import { withFileCalendar } from './file-calendar.ts';

type Ctx = Pick<ToolContext, 'agentName' | 'instanceKey' | 'message' | 'signal' | 'workdir' | 'config'>;

/** Runs `work` against the calendar backend the Tool's config names (CalDAV server or ICS file). */
export function withCalendarBackend<T>(
  ctx: Ctx,
  work: (session: CalendarBackendSession, kind: 'dav' | 'file') => Promise<T>,
): Promise<T> {
  const backend = pimBackendOf(ctx, 'calendar');
  return backend.type === 'file'
    ? withFileCalendar(backend, (session) => work(session, 'file'))
    : withCalDav(ctx, backend, (session) => work(session, 'dav'));
}
