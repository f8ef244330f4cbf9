import type { ScheduleFilter, ScheduleInput, Scheduler } from '@goondan/core';
import { GoondanError } from '@goondan/core';
import { anyText, instanceKeyFilter, oneOf, readFilters } from '../console/console-filters.ts';
import { badRequest } from './api-error.ts';
import { readJsonBody, refuseUnknownFields } from './read-json-body.ts';
import { readSchedulePage, schedulePageFilters } from './schedule-page.ts';
import type { Route } from './serve-api.ts';

const stringFields = ['agent', 'instanceKey', 'at', 'rrule', 'cron', 'timeZone', 'label', 'input'] as const;

/** The body of POST /v1/schedules as a ScheduleInput: field types checked here, meaning by the scheduler. */
function scheduleInput(body: Record<string, unknown>, defaultInstance: string): ScheduleInput {
  refuseUnknownFields(body, [...stringFields, 'inMs', 'missedPolicy']);
  for (const field of stringFields) {
    if (body[field] !== undefined && typeof body[field] !== 'string') throw badRequest(`'${field}' must be a string.`);
  }
  if (typeof body.agent !== 'string') throw badRequest("'agent' must name the agent the schedule fires for.");
  if (body.inMs !== undefined && typeof body.inMs !== 'number') throw badRequest("'inMs' must be a number.");
  if (body.missedPolicy !== undefined && body.missedPolicy !== 'fire-once-late' && body.missedPolicy !== 'skip') {
    throw badRequest("'missedPolicy' must be 'fire-once-late' or 'skip'.");
  }
  return { ...body, instanceKey: body.instanceKey ?? defaultInstance } as ScheduleInput;
}

/** An id from the path, echoed short: a path of kilobytes is not worth sending back. */
const shortId = (id: string) => (id.length > 80 ? `${id.slice(0, 80)}…` : id);

/**
 * GET/POST /v1/schedules (a page: `?limit=&after=`, long fields cut), GET /v1/schedules/:id (one schedule whole)
 * and DELETE /v1/schedules/:id, on the host's Scheduler.
 */
export function scheduleRoutes(scheduler: Scheduler, defaultInstance: () => string): Route[] {
  return [
    {
      method: 'GET',
      path: '/v1/schedules',
      handle: (_request, url) => {
        // A misspelt filter must not widen the answer: it is a 400, as in the console.
        const { agent, instance, status, limit, after } = readFilters(url, {
          agent: anyText,
          instance: instanceKeyFilter,
          status: oneOf(['active', 'done', 'cancelled', 'all']),
          ...schedulePageFilters,
        });
        const filter: ScheduleFilter = {
          ...(agent ? { agent } : {}),
          ...(instance ? { instanceKey: instance } : {}),
          ...(status ? { status } : {}),
        };
        // A page, its long fields cut: 10,000 schedules of 15 KB inputs were one answer of 153 MB.
        return Response.json(
          readSchedulePage(scheduler, filter, {
            ...(limit === undefined ? {} : { limit }),
            ...(after === undefined ? {} : { after }),
          }),
        );
      },
    },
    {
      method: 'GET',
      path: '/v1/schedules/:id',
      handle: (_request, _url, params) => {
        const schedule = scheduler.get(params.id!);
        if (!schedule) throw new GoondanError('E_SCHEDULE_NOT_FOUND', `No schedule '${shortId(params.id!)}'.`);
        return Response.json({ schedule });
      },
    },
    {
      method: 'POST',
      path: '/v1/schedules',
      handle: async (request) => {
        const input = scheduleInput(await readJsonBody(request), defaultInstance());
        return Response.json({ schedule: scheduler.add(input) }, { status: 201 });
      },
    },
    {
      method: 'DELETE',
      path: '/v1/schedules/:id',
      handle: (_request, _url, params) => {
        if (!scheduler.cancel(params.id!)) {
          throw new GoondanError('E_SCHEDULE_NOT_FOUND', `No active schedule '${shortId(params.id!)}'.`);
        }
        return Response.json({ cancelled: params.id });
      },
    },
  ];
}
