/**
 * Calendar events over CalDAV or in a local ICS file (docs/assistant.md#calendar-and-contacts). The backend is the
 * Tool's config; listing is safe, creating and deleting are sensitive (their exports' category).
 */
import type { ToolContext } from '@goondan/core';
import { createEvent, deleteEvent, listEvents } from '../../src/calendar/calendar-events.ts';
import { answerPendingAuthorization } from '../../src/dav/answer-pending-authorization.ts';

export const handlers = {
  list_events: (ctx: ToolContext, input: Parameters<typeof listEvents>[1]) =>
    answerPendingAuthorization(() => listEvents(ctx, input)),
  create_event: (ctx: ToolContext, input: Parameters<typeof createEvent>[1]) =>
    answerPendingAuthorization(() => createEvent(ctx, input)),
  delete_event: (ctx: ToolContext, input: Parameters<typeof deleteEvent>[1]) =>
    answerPendingAuthorization(() => deleteEvent(ctx, input)),
};
