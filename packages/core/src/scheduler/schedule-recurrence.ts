import type { Cron } from 'croner';
import type { RRuleTemporal } from 'rrule-temporal';
import { GoondanError } from '../errors/goondan-error.ts';
import { resolveTimeZone } from './resolve-time-zone.ts';
import type { ScheduleKind } from './schedule-types.ts';
import { Temporal } from './temporal.ts';

/** What decides a schedule's occurrences. */
export interface Recurrence {
  kind: ScheduleKind;
  expression: string;
  timeZone: string;
}

const rules = new Map<string, RRuleTemporal>();
const RULE_CACHE_LIMIT = 1000;

/**
 * Throws E_SCHEDULE_TIME_ZONE unless `timeZone` is an IANA name this runtime knows; returns it as given. A UTC
 * offset is refused too: an RRULE could not be read in it (the rule failed as 'invalid date string').
 */
export function checkTimeZone(timeZone: string): string {
  const resolved = resolveTimeZone(timeZone);
  if ('zone' in resolved) return timeZone;
  throw new GoondanError('E_SCHEDULE_TIME_ZONE', resolved.message, { suggestion: resolved.suggestion });
}

/** An ISO time with an offset or `Z`, or a local date-time read in `timeZone` (DST gaps move forward). */
export function parseInstant(at: string, timeZone: string): number {
  const text = at.trim();
  try {
    if (/(Z|[+-]\d\d(:?\d\d)?)$/i.test(text) || text.includes('['))
      return Temporal.Instant.from(text).epochMilliseconds;
    return Temporal.PlainDateTime.from(text).toZonedDateTime(timeZone, { disambiguation: 'compatible' })
      .epochMilliseconds;
  } catch {
    throw new GoondanError(
      'E_SCHEDULE_INVALID',
      `at '${at}' is not an ISO 8601 date-time (e.g. 2026-05-01T09:00:00+09:00, or 2026-05-01T09:00 with --tz).`,
    );
  }
}

/** `YYYYMMDDTHHMMSS` of an instant in a zone (RFC 5545 DATE-TIME with TZID). */
function localStamp(epochMs: number, timeZone: string): string {
  const local = Temporal.Instant.fromEpochMilliseconds(epochMs).toZonedDateTimeISO(timeZone);
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  return `${pad(local.year, 4)}${pad(local.month)}${pad(local.day)}T${pad(local.hour)}${pad(local.minute)}${pad(local.second)}`;
}

/**
 * Where a rule given without a DTSTART line starts: the next whole minute after `now` in `timeZone`, or the next
 * whole hour when the rule gives BYHOUR but no BYMINUTE. RFC 5545 takes what a rule leaves open from DTSTART, so
 * starting at `now` itself made `BYHOUR=9;BYMINUTE=0` fire at 09:00:23 (the seconds it was added at) and
 * `BYHOUR=10` at 10:14; starting after `now` (not before it) keeps every occurrence a COUNT allows in the future.
 */
export function implicitRruleStart(rrule: string, timeZone: string, now: number): number {
  const hourOnly = /(^|[;:\s])BYHOUR=/i.test(rrule) && !/(^|[;:\s])BYMINUTE=/i.test(rrule);
  return Temporal.Instant.fromEpochMilliseconds(now + 1)
    .toZonedDateTimeISO(timeZone)
    .round({ smallestUnit: hourOnly ? 'hour' : 'minute', roundingMode: 'ceil' }).epochMilliseconds;
}

/**
 * The RRULE text stored for a schedule: the rule as given (with or without `RRULE:`), with a `DTSTART;TZID=`
 * line made from `startMs` in `timeZone` when it has none, so occurrences keep their wall-clock time across DST.
 */
export function normalizeRrule(rrule: string, timeZone: string, startMs: number): string {
  const lines = rrule
    .trim()
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
  const hasStart = lines.some((line) => /^DTSTART[:;]/i.test(line));
  const body = lines.map((line) => (/^(DTSTART|RRULE|EXDATE|RDATE)[:;]/i.test(line) ? line : `RRULE:${line}`));
  return [...(hasStart ? [] : [`DTSTART;TZID=${timeZone}:${localStamp(startMs, timeZone)}`]), ...body].join('\n');
}

function ruleOf(expression: string): RRuleTemporal {
  let rule = rules.get(expression);
  if (!rule) {
    try {
      // Required at the first rule, not imported at the top: the core barrel (and so every gdn start) loads this file.
      const { RRuleTemporal } = require('rrule-temporal') as typeof import('rrule-temporal');
      rule = new RRuleTemporal({ rruleString: expression, cache: false });
    } catch (thrown) {
      throw new GoondanError('E_SCHEDULE_INVALID', `rrule is not a valid RFC 5545 rule: ${(thrown as Error).message}`);
    }
    if (rules.size >= RULE_CACHE_LIMIT) rules.clear();
    rules.set(expression, rule);
  }
  return rule;
}

function cronOf(expression: string, timeZone: string): Cron {
  try {
    const { Cron } = require('croner') as typeof import('croner');
    return new Cron(expression, { timezone: timeZone, paused: true });
  } catch (thrown) {
    throw new GoondanError('E_SCHEDULE_INVALID', `cron '${expression}' is not valid: ${(thrown as Error).message}`);
  }
}

/**
 * The first occurrence strictly after `afterMs` (epoch ms), or null when there is none (a one-shot already
 * passed, a COUNT/UNTIL used up). Throws E_SCHEDULE_INVALID for a rule that cannot be read or never matches.
 */
export function nextOccurrence(recurrence: Recurrence, afterMs: number): number | null {
  if (recurrence.kind === 'at') {
    const at = Temporal.Instant.from(recurrence.expression).epochMilliseconds;
    return at > afterMs ? at : null;
  }
  if (recurrence.kind === 'cron') {
    const next = cronOf(recurrence.expression, recurrence.timeZone).nextRun(new Date(afterMs));
    return next ? next.getTime() : null;
  }
  try {
    const next = ruleOf(recurrence.expression).next(new Date(afterMs), false);
    return next ? next.epochMilliseconds : null;
  } catch (thrown) {
    if (thrown instanceof GoondanError) throw thrown;
    throw new GoondanError(
      'E_SCHEDULE_INVALID',
      `rrule has no occurrence that can be found (${(thrown as Error).message}); check BYMONTH/BYMONTHDAY/BYDAY agree.`,
    );
  }
}
