import type { JsonValue } from '../types.ts';

/** What a firing does when it comes due while nothing ran (a restart, a suspended laptop). */
export type MissedPolicy = 'fire-once-late' | 'skip';

/** How a schedule recurs: once at an instant, by an RFC 5545 RRULE, or by a cron expression. */
export type ScheduleKind = 'at' | 'rrule' | 'cron';

/** Where a firing goes: one agent instance. */
export interface ScheduleTarget {
  agent: string;
  instanceKey: string;
}

/**
 * What `Scheduler.add` takes. Exactly one of `at` (ISO 8601 with an offset or `Z`, or a local time read in
 * `timeZone`), `inMs` (a delay from now), `rrule` (`FREQ=…` with an optional `DTSTART` line) or `cron`.
 */
export interface ScheduleInput extends Omit<ScheduleTarget, 'instanceKey'> {
  /** The instance the firing goes to. Default `default`. */
  instanceKey?: string;
  at?: string;
  inMs?: number;
  rrule?: string;
  cron?: string;
  /** IANA time zone the recurrence (and a local `at`) is read in. Default `UTC`. */
  timeZone?: string;
  label?: string;
  /** The text the agent reads when it fires. Default: the label. */
  input?: string;
  missedPolicy?: MissedPolicy;
}

export type ScheduleStatus = 'active' | 'done' | 'cancelled';

/** A stored schedule. Times are epoch milliseconds. */
export interface ScheduleRecord extends ScheduleTarget {
  id: string;
  kind: ScheduleKind;
  /** The instant (ISO, for `at`), the full RRULE text with DTSTART, or the cron expression. */
  expression: string;
  timeZone: string;
  label: string;
  input: string;
  missedPolicy: MissedPolicy;
  status: ScheduleStatus;
  /** The next occurrence not fired yet; null once done or cancelled. */
  nextDueAt: number | null;
  lastFiredAt: number | null;
  createdAt: number;
}

export type FiringStatus = 'delivering' | 'delivered';

/** One occurrence taken for delivery. `eventId` is `sched_<scheduleId>_<scheduledAt>`, the same on every retry. */
export interface FiringRecord extends ScheduleTarget {
  eventId: string;
  scheduleId: string;
  scheduledAt: number;
  firedAt: number;
  status: FiringStatus;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: number;
  event: JsonValue;
}

export interface ScheduleFilter {
  agent?: string;
  instanceKey?: string;
  /** Default: active only; `all` includes done and cancelled ones. */
  status?: ScheduleStatus | 'all';
}
