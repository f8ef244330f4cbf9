import type { ScheduleFilter, ScheduleListPage, ScheduleRecord } from '@goondan/core';
import { fitPage, shownSchedule } from '../console/console-bounds.ts';
import { matching, positiveInteger } from '../console/console-filters.ts';
import { badRequest } from './api-error.ts';

/** Schedules of a page when `limit` is not given, and the most one page holds (a larger `limit` is taken as this). */
export const SCHEDULE_PAGE = 200;
export const MAX_SCHEDULE_PAGE = 5000;

/** The paging filters of GET /v1/schedules and /console/api/schedules, read as their other filters are. */
export const schedulePageFilters = {
  limit: positiveInteger(MAX_SCHEDULE_PAGE),
  after: matching(/^[\w.:-]{1,128}$/, 'a schedule id (the `later` of the page before it)'),
};

/** What a page is read from: the Scheduler of `gdn serve`, or the ScheduleStore the console opens. */
export interface ScheduleSource {
  list(filter: ScheduleFilter, page: ScheduleListPage): ScheduleRecord[];
  count(filter: ScheduleFilter): number;
  get(id: string): ScheduleRecord | null;
}

export interface SchedulePage {
  /** How many schedules the filter matches, on every page. */
  total: number;
  /** The cursor of the next page (the id of this page's last schedule, to pass as `after`); null at the last page. */
  later: string | null;
  schedules: (ScheduleRecord & { cutChars?: number })[];
}

/**
 * One page of the schedules `filter` matches, in the store's order (next due time, then creation): the first
 * `limit` (SCHEDULE_PAGE by default), or the `limit` after the schedule `after`. Only those rows are read. Each
 * is cut as shownSchedule cuts it, and a page stops at about PAGE_CHARS (one schedule at least), `later` then
 * pointing at its last one, so paging on reaches every schedule. An `after` that names no schedule is a bad request.
 */
export function readSchedulePage(
  source: ScheduleSource,
  filter: ScheduleFilter,
  page: { limit?: number; after?: string },
): SchedulePage {
  const limit = page.limit ?? SCHEDULE_PAGE;
  let after: ScheduleRecord | undefined;
  if (page.after !== undefined) {
    after = source.get(page.after) ?? undefined;
    if (!after) throw badRequest(`'after' names no schedule: '${page.after.slice(0, 64)}'.`);
  }
  // One more than the page: whether any follows without counting what comes after.
  const read = source.list(filter, { limit: limit + 1, ...(after ? { after } : {}) });
  const shown = read.slice(0, limit).map(shownSchedule);
  // fitPage keeps the last that fit; this page keeps the first, so it is given them reversed.
  const { kept, dropped } = fitPage(shown.reverse());
  const schedules = kept.reverse();
  const more = read.length > limit || dropped > 0;
  return { total: source.count(filter), later: more ? schedules.at(-1)!.id : null, schedules };
}
