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
  if (/\[[^\]=]+\]/.test(text)) return parseZoned(at, text);
  try {
    if (/(Z|[+-]\d\d(:?\d\d)?)$/i.test(text) || text.includes('['))
      return Temporal.Instant.from(text).epochMilliseconds;
    return Temporal.PlainDateTime.from(text).toZonedDateTime(timeZone, { disambiguation: 'compatible' })
      .epochMilliseconds;
  } catch {
    throw new GoondanError(
      'E_SCHEDULE_INVALID',
      `at '${clip(at)}' is not an ISO 8601 date-time (e.g. 2026-05-01T09:00:00+09:00, or 2026-05-01T09:00 with --tz).`,
    );
  }
}

/**
 * A time with a zone in brackets (RFC 9557: `2026-05-01T09:00[Asia/Seoul]`, `…+09:00[Asia/Seoul]`): read in that
 * zone. It was read as an instant, so a time with the zone and no offset was refused, and an offset the zone does
 * not have then (`09:00+05:00[Asia/Seoul]`) was taken and the zone dropped without a word; that is refused now.
 */
function parseZoned(at: string, text: string): number {
  const zone = /\[!?([^\]=]+)\]/.exec(text)?.[1];
  if (zone) checkTimeZone(zone);
  try {
    return Temporal.ZonedDateTime.from(text, { offset: 'reject', disambiguation: 'compatible' }).epochMilliseconds;
  } catch {
    let inZone: ReturnType<typeof Temporal.ZonedDateTime.from> | undefined;
    try {
      inZone = Temporal.ZonedDateTime.from(text, { offset: 'ignore', disambiguation: 'compatible' });
    } catch {
      // Not readable at all: the message below.
    }
    throw new GoondanError(
      'E_SCHEDULE_INVALID',
      inZone
        ? `at '${clip(at)}' gives an offset that ${inZone.timeZoneId} does not have at that time (it is ${inZone.offset} there); give the offset or the zone, not both.`
        : `at '${clip(at)}' is not an ISO 8601 date-time (e.g. 2026-05-01T09:00:00+09:00, 2026-05-01T09:00[Asia/Seoul], or 2026-05-01T09:00 with --tz).`,
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
      throw new GoondanError(
        'E_SCHEDULE_INVALID',
        `rrule is not a valid RFC 5545 rule: ${clip((thrown as Error).message, 300)}`,
      );
    }
    if (rules.size >= RULE_CACHE_LIMIT) rules.clear();
    rules.set(expression, rule);
  }
  return rule;
}

/** A rule of FREQ=DAILY or coarser whose DTSTART names a zone, expanded in that zone's wall-clock time. */
interface WallClockRule {
  /** The same rule with every local time written as UTC, so no DST change can drop or double one. */
  rule: RRuleTemporal;
  zone: string;
}

const wallClockRules = new Map<string, WallClockRule | null>();
const DATE_TIME = /^(\d{8}T\d{6})(Z?)$/i;

/** Epoch ms of a `YYYYMMDDTHHMMSS` stamp read as UTC. */
function utcStampMs(stamp: string): number {
  const iso = `${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}T${stamp.slice(9, 11)}:${stamp.slice(11, 13)}:${stamp.slice(13, 15)}Z`;
  return Temporal.Instant.from(iso).epochMilliseconds;
}

/** The local stamp in `zone` of a stamp given in `fromZone` (a `Z` stamp is UTC). */
function stampIn(stamp: string, utc: boolean, fromZone: string | undefined, zone: string): string {
  if (!utc && fromZone === undefined) return stamp; // floating: already wall-clock time
  const at = utc
    ? utcStampMs(stamp)
    : Temporal.Instant.fromEpochMilliseconds(utcStampMs(stamp))
        .toZonedDateTimeISO('UTC')
        .toPlainDateTime()
        .toZonedDateTime(fromZone!, { disambiguation: 'compatible' }).epochMilliseconds;
  return localStamp(at, zone);
}

/**
 * The wall-clock form of a stored rule, or null when the rule keeps its plain RFC 5545 reading: no DTSTART with a
 * TZID (a UTC or floating start has no DST), or a frequency of HOURLY and finer (those count elapsed time). RFC
 * 5545 (§3.3.10) drops an occurrence whose local time a DST gap skips, so a daily 02:30 in Europe/Berlin did not fire
 * on the last Sunday of March at all; expanded in wall-clock time, every day has its 02:30, placed in the zone as
 * `--at` places a local time (in a gap moved forward by the gap, in an overlap the first of the two).
 */
function wallClockRuleOf(expression: string): WallClockRule | null {
  if (wallClockRules.has(expression)) return wallClockRules.get(expression)!;
  const lines = expression.split(/\r?\n/).map((line) => line.trim());
  const start = lines.findIndex((line) => /^DTSTART[;:]/i.test(line));
  const parts = start < 0 ? null : /^DTSTART((?:;[^:]*)?):(\d{8}T\d{6})$/i.exec(lines[start]!);
  const zone = parts ? /;TZID=([^;:]+)/i.exec(parts[1]!)?.[1] : undefined;
  const coarse = lines.some((line) => /^RRULE:(?:.*;)?FREQ=(DAILY|WEEKLY|MONTHLY|YEARLY)(;|$)/i.test(line));
  let found: WallClockRule | null = null;
  if (parts && zone && coarse && zone.toUpperCase() !== 'UTC') {
    const text = lines.map((line, index) => {
      if (index === start) return `DTSTART;TZID=UTC:${parts[2]}`;
      if (/^RRULE:/i.test(line))
        return line.replace(
          /UNTIL=(\d{8}T\d{6})Z/i,
          (_, stamp: string) => `UNTIL=${stampIn(stamp, true, undefined, zone)}Z`,
        );
      const dates = /^(EXDATE|RDATE)((?:;[^:]*)?):(.*)$/i.exec(line);
      if (!dates || /VALUE=DATE(;|$)/i.test(dates[2]!)) return line;
      const from = /;TZID=([^;:]+)/i.exec(dates[2]!)?.[1];
      const values = dates[3]!.split(',').map((value) => {
        const stamp = DATE_TIME.exec(value.trim());
        return stamp ? stampIn(stamp[1]!, stamp[2] !== '', from, zone) : value;
      });
      return `${dates[1]};TZID=UTC:${values.join(',')}`;
    });
    const { RRuleTemporal } = require('rrule-temporal') as typeof import('rrule-temporal');
    try {
      found = { rule: new RRuleTemporal({ rruleString: text.join('\n'), cache: false }), zone };
    } catch (thrown) {
      ruleOf(expression); // a rule that cannot be read is told as such (E_SCHEDULE_INVALID, "not a valid RFC 5545 rule")
      throw thrown;
    }
  }
  if (wallClockRules.size >= RULE_CACHE_LIMIT) wallClockRules.clear();
  wallClockRules.set(expression, found);
  return found;
}

/** Wall-clock time of `epochMs` in `zone`, as epoch ms of the same stamp in UTC. */
function wallClockMs(epochMs: number, zone: string): number {
  return Temporal.Instant.fromEpochMilliseconds(epochMs)
    .toZonedDateTimeISO(zone)
    .toPlainDateTime()
    .toZonedDateTime('UTC').epochMilliseconds;
}

/** Where a wall-clock time (as UTC epoch ms) falls in `zone`: a gap moves it forward, an overlap takes the first. */
function placed(wallMs: number, zone: string): number {
  return Temporal.Instant.fromEpochMilliseconds(wallMs)
    .toZonedDateTimeISO('UTC')
    .toPlainDateTime()
    .toZonedDateTime(zone, { disambiguation: 'compatible' }).epochMilliseconds;
}

/** No DST change moves a wall-clock time by more than this (2 h: double summer time), so candidates past it are later. */
const MAX_SHIFT_MS = 3 * 3_600_000;

/**
 * The first occurrence of a wall-clock rule strictly after `afterMs`. Placing is not monotonic around a change (in an
 * overlap's second pass a later wall-clock time can fall before `afterMs`; a gap moves 02:30 past 03:00), so the
 * candidates within a few hours of the first are all placed and the earliest after `afterMs` is taken.
 */
function nextWallClock({ rule, zone }: WallClockRule, afterMs: number): number | null {
  let cursor = wallClockMs(afterMs, zone) - MAX_SHIFT_MS;
  let best: number | null = null;
  let horizon = Number.POSITIVE_INFINITY;
  for (let step = 0; step < 1000; step += 1) {
    const next = rule.next(new Date(cursor), false);
    if (!next || next.epochMilliseconds > horizon) break;
    cursor = next.epochMilliseconds;
    const at = placed(cursor, zone);
    if (at <= afterMs) continue;
    if (best === null || at < best) best = at;
    if (horizon === Number.POSITIVE_INFINITY) horizon = cursor + MAX_SHIFT_MS;
  }
  return best;
}

/** `text` cut to `max` characters (an error message quotes what it was given, not a megabyte of it). */
export function clip(text: string, max = 120): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}

function cronOf(expression: string, timeZone: string): Cron {
  try {
    const { Cron } = require('croner') as typeof import('croner');
    return new Cron(expression, { timezone: timeZone, paused: true });
  } catch (thrown) {
    // croner's own words, without its class name and its quote of the expression (given in full before them).
    const reason = (thrown as Error).message
      .split(expression)
      .join('…')
      .replace(/^CronPattern:\s*/, '')
      .replace(/invalid configuration format \('…'\),\s*/, '');
    throw new GoondanError('E_SCHEDULE_INVALID', `cron '${clip(expression)}' is not valid: ${clip(reason, 300)}`);
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
    const wallClock = wallClockRuleOf(recurrence.expression);
    if (wallClock) return nextWallClock(wallClock, afterMs);
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
