import type { AgentEvent } from '../agent/agent-event.ts';
import { buildSchedule } from './build-schedule.ts';
import { scheduleFiredEvent } from './schedule-event.ts';
import { nextOccurrence } from './schedule-recurrence.ts';
import type { ScheduleListPage, ScheduleStore } from './schedule-store.ts';
import type { FiringRecord, ScheduleFilter, ScheduleInput, ScheduleRecord, ScheduleTarget } from './schedule-types.ts';

export const DEFAULT_MAX_SLEEP_MS = 1_000;
export const DEFAULT_LATE_AFTER_MS = 60_000;
export const DEFAULT_DELIVER_TIMEOUT_MS = 30_000;
const MAX_RETRY_DELAY_MS = 60_000;
/** Delivered firings are history only (the instance's handled_events stops a rerun); kept this long. */
export const DELIVERED_FIRINGS_KEPT_MS = 7 * 86_400_000;
/** Occurrences taken per pass: a long outage with many short recurrences cannot hold the loop. */
const MAX_CLAIMS_PER_PASS = 10_000;
/** How often a delivering pass removes old delivered firings. */
const PRUNE_EVERY_MS = 60_000;
/** Due schedules read from the store at a time. */
const DUE_PAGE = 1000;

export interface SchedulerOptions {
  store: ScheduleStore;
  /**
   * Hands a firing's event to its agent instance; resolves once the instance has durably accepted it (stored in
   * its inbox or appended). Rejecting leaves the firing undelivered: it is retried with backoff, with the same id.
   */
  deliver: (target: ScheduleTarget, event: AgentEvent) => Promise<void>;
  /** The clock (epoch ms); tests pass their own. */
  now?: () => number;
  logger?: { warn(message: string): void };
  /** Agents `add` accepts (E_AGENT_UNKNOWN otherwise); default: any name. */
  agents?: readonly string[] | (() => readonly string[]);
  /** Targets this scheduler fires; others are left in the store for another host. Default: every target. */
  accepts?: (target: ScheduleTarget) => boolean;
  /** Longest sleep between clock checks (and looks at the store for schedules other processes added). */
  maxSleepMs?: number;
  /** An occurrence taken more than this after its time counts as missed: marked late, or skipped. */
  lateAfterMs?: number;
  deliverTimeoutMs?: number;
}

/**
 * The durable scheduler: schedules in a ScheduleStore; when one comes due, the agent instance that owns it gets
 * a `schedule.fired` event from `system:scheduler`. It never sleeps longer than `maxSleepMs` and reads the clock
 * at every wake, so far-future timers and clock jumps need no long setTimeout. Each occurrence is written as a
 * firing ("delivering") in the same transaction that moves the schedule on, then delivered, then marked
 * "delivered": a crash in between redelivers it at the next start with the same event id, which the instance
 * recognises (at-least-once delivery, exactly-once turns).
 *
 * @example
 * const scheduler = new Scheduler({ store: openScheduleStore({ path }), deliver: orchestratorDeliver(orchestrator) });
 * scheduler.start();
 * scheduler.add({ agent: 'assistant', instanceKey: 'default', inMs: 60_000, input: 'Stand up and stretch.' });
 */
/** Delivery failures no retry mends: the event is dropped, once, with a warning. */
const PERMANENT_FAILURES = new Set(['E_AGENT_UNKNOWN', 'E_AGENT_NOT_CALLABLE', 'E_INSTANCE_KEY_INVALID']);

export class Scheduler {
  private readonly now: () => number;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private started = false;
  private pass: Promise<number> = Promise.resolve(0);
  private stopping = false;
  private prunedAt = Number.NEGATIVE_INFINITY;
  /** Schedules whose firings were dropped as undeliverable, warned about once. */
  private readonly dropped = new Set<string>();

  constructor(private readonly options: SchedulerOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Fires what came due while nothing ran (and redelivers what a crash left), then keeps watching. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.stopping = false;
    this.arm(0);
  }

  /**
   * Stops watching; resolves once a pass under way has finished. That pass takes no further occurrence and delivers
   * nothing more after the one it is delivering (what it leaves stays due, or undelivered, for the next host).
   */
  async stop(): Promise<void> {
    this.started = false;
    this.stopping = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.pass.catch(() => 0);
  }

  /** Checks and stores a schedule (nothing is written when it is refused). */
  add(input: ScheduleInput): ScheduleRecord {
    const agents = typeof this.options.agents === 'function' ? this.options.agents() : this.options.agents;
    const record = buildSchedule({ input, now: this.now(), ...(agents ? { agents } : {}) });
    this.options.store.insert(record);
    // Stored: a failure to read the wake time now must not tell the caller it was not (a retry would add it twice).
    if (this.started) this.arm(this.wakeDelayOr('after an add'));
    return record;
  }

  /** Schedules by next due time, then by creation; `page` reads a part of them (ScheduleStore.list). */
  list(filter?: ScheduleFilter, page?: ScheduleListPage): ScheduleRecord[] {
    return this.options.store.list(filter, page);
  }

  /** The schedule with this id, whatever its status; null when there is none. */
  get(id: string): ScheduleRecord | null {
    return this.options.store.get(id);
  }

  /** How many schedules `list(filter)` would give (active ones by default), without reading them. */
  count(filter?: ScheduleFilter): number {
    return this.options.store.count(filter);
  }

  /** True when an active schedule was cancelled; false when no active schedule has that id. */
  cancel(id: string): boolean {
    return this.options.store.cancel(id);
  }

  /**
   * One pass: redelivers firings a crash or a failed delivery left, then takes every due occurrence in time
   * order and delivers it. Resolves with the number of events delivered. Passes never overlap.
   */
  runDue(): Promise<number> {
    const run = this.pass.catch(() => 0).then(() => this.runPass());
    this.pass = run;
    return run;
  }

  /** How long the loop sleeps now: until the next due occurrence or retry, never more than `maxSleepMs`. */
  nextWakeDelay(): number {
    const now = this.now();
    const cap = this.options.maxSleepMs ?? DEFAULT_MAX_SLEEP_MS;
    let wake = now + cap;
    const accepts = this.options.accepts ?? (() => true);
    const next = this.options.store.upcoming(200).find((row) => accepts(row));
    if (next) wake = Math.min(wake, next.nextDueAt);
    for (const retry of this.options.store.retryTimes()) {
      if (accepts(retry)) wake = Math.min(wake, retry.nextAttemptAt);
    }
    return Math.max(0, wake - now);
  }

  private arm(delay: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.cycle(), delay);
    this.timer.unref?.();
  }

  private async cycle(): Promise<void> {
    await this.runDue().catch((thrown) => this.warn(`scheduler pass failed: ${(thrown as Error)?.message}`));
    if (this.started) this.arm(this.wakeDelayOr('after a pass'));
  }

  /**
   * `nextWakeDelay()`, or the longest sleep when the store fails to answer (busy, being replaced): that must not end
   * the loop (it was never armed again, so nothing fired until the process restarted, and the rejection went
   * unhandled).
   */
  private wakeDelayOr(when: string): number {
    try {
      return this.nextWakeDelay();
    } catch (thrown) {
      this.warn(`scheduler could not read when to wake ${when}: ${(thrown as Error)?.message}; trying again`);
      return this.options.maxSleepMs ?? DEFAULT_MAX_SLEEP_MS;
    }
  }

  private async runPass(): Promise<number> {
    const { store } = this.options;
    const accepts = this.options.accepts ?? (() => true);
    let delivered = 0;
    // Retries due now, a page at a time; those a page holds for other hosts are paged past.
    const passStart = this.now();
    let after: FiringRecord | undefined;
    for (;;) {
      const page = store.retryDue(passStart, DUE_PAGE, after);
      for (const firing of page) {
        if (this.stopping) return delivered;
        if (!accepts(firing)) continue;
        if (await this.deliver(firing, firing.event as unknown as AgentEvent, firing.attempts)) delivered += 1;
      }
      if (page.length < DUE_PAGE) break;
      after = page.at(-1);
    }
    let claims = 0;
    for (;;) {
      const now = this.now();
      const due = this.dueAccepted(now, accepts);
      if (due.length === 0 || claims >= MAX_CLAIMS_PER_PASS) break;
      for (const schedule of due) {
        if (this.stopping) return delivered;
        claims += 1;
        const event = this.take(schedule, this.now());
        if (event && (await this.deliver(schedule, event, 0))) delivered += 1;
      }
    }
    // At most once a minute: the delete scans the delivered firings, and a pass that delivers can come every second.
    if (delivered > 0 && this.now() - this.prunedAt >= PRUNE_EVERY_MS) {
      this.prunedAt = this.now();
      store.pruneDelivered(this.now() - DELIVERED_FIRINGS_KEPT_MS);
    }
    return delivered;
  }

  /**
   * Due schedules of the targets this host fires. Others' are paged past: a gdn chat under a thousand due schedules
   * of instances only gdn serve runs (left for it) never reached its own alarm behind them.
   */
  private dueAccepted(now: number, accepts: (target: ScheduleTarget) => boolean): ScheduleRecord[] {
    let after: ScheduleRecord | undefined;
    for (;;) {
      const page = this.options.store.due(now, DUE_PAGE, after);
      const mine = page.filter((schedule) => accepts(schedule));
      if (mine.length > 0 || page.length < DUE_PAGE) return mine;
      after = page.at(-1);
    }
  }

  /** Takes the schedule's due occurrence: the event to deliver, or null when skipped or taken elsewhere. */
  private take(schedule: ScheduleRecord, now: number): AgentEvent | null {
    const scheduledAt = schedule.nextDueAt!;
    const late = now - scheduledAt > (this.options.lateAfterMs ?? DEFAULT_LATE_AFTER_MS);
    let nextDueAt: number | null;
    try {
      // A missed run fires once: later occurrences that also passed are folded into it.
      nextDueAt = nextOccurrence(schedule, late ? now : scheduledAt);
    } catch (thrown) {
      this.warn(`schedule ${schedule.id}: ${(thrown as Error).message}; it is marked done`);
      nextDueAt = null;
    }
    const skip = late && schedule.missedPolicy === 'skip';
    const event = skip ? null : scheduleFiredEvent({ schedule, scheduledAt, firedAt: now, late });
    const taken = this.options.store.claim({ schedule, nextDueAt, event, scheduledAt, firedAt: now });
    return taken ? event : null;
  }

  /** One delivery attempt; a failure is stored with the time of the next attempt (backoff). */
  private async deliver(target: ScheduleTarget, event: AgentEvent, attempts: number): Promise<boolean> {
    const { store } = this.options;
    const timeoutMs = this.options.deliverTimeoutMs ?? DEFAULT_DELIVER_TIMEOUT_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        this.options.deliver({ agent: target.agent, instanceKey: target.instanceKey }, event),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`not accepted within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      store.markDelivered(event.id, this.now());
      return true;
    } catch (thrown) {
      const message = (thrown as Error)?.message ?? String(thrown);
      const code = (thrown as { code?: string })?.code;
      // The target is not in the bundle (an agent removed, a key refused): no retry can ever deliver it.
      if (code !== undefined && PERMANENT_FAILURES.has(code)) {
        store.abandon(event.id);
        // Once per schedule: a cron firing every second into a removed agent wrote a warning every second.
        const scheduleId = String((event.data as { scheduleId?: unknown } | undefined)?.scheduleId ?? event.id);
        if (!this.dropped.has(scheduleId)) {
          if (this.dropped.size >= 10_000) this.dropped.clear();
          this.dropped.add(scheduleId);
          this.warn(
            `schedule event ${event.id} for ${target.agent}/${target.instanceKey} dropped (${code}: ${message}); it cannot be delivered, so it is not retried; later firings of schedule ${scheduleId} are dropped without a warning (gdn schedules cancel ${scheduleId} ends it)`,
          );
        }
        return false;
      }
      const retryIn = Math.min(MAX_RETRY_DELAY_MS, 1_000 * 2 ** Math.min(attempts, 16));
      store.markFailed(event.id, code ? `${code}: ${message}` : message, this.now() + retryIn);
      this.warn(
        `schedule event ${event.id} for ${target.agent}/${target.instanceKey} not delivered (${code ?? 'error'}: ${message}); retrying in ${Math.round(retryIn / 1000)} s`,
      );
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  private warn(message: string): void {
    try {
      (this.options.logger ?? console).warn(message);
    } catch {
      // Loggers are observers (STYLE habit 8).
    }
  }
}
