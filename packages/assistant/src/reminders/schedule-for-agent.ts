import {
  GoondanError,
  openScheduleStore,
  type ScheduleInput,
  type ScheduleRecord,
  Scheduler,
  scheduleStorePath,
  type ToolContext,
} from '@goondan/core';
import { assistantBundleRoot } from '../store/assistant-bundle-root.ts';
import { hostTimeZone, isoInZone, resolveTimeZone, weekdayNameAt } from '../when/zoned-time.ts';

type Ctx = Pick<ToolContext, 'workdir' | 'config' | 'agentName' | 'instanceKey'>;

/** The IANA zone times are read and shown in (an unknown zone or a UTC offset is E_SCHEDULE_TIME_ZONE): the call's, else config.timeZone, else the host's (always echoed). */
export function zoneOf(ctx: Ctx, requested?: string): string {
  const zone = requested ?? (typeof ctx.config.timeZone === 'string' ? ctx.config.timeZone : undefined);
  const resolved = resolveTimeZone(zone ?? hostTimeZone());
  if ('zone' in resolved) return resolved.zone;
  throw new GoondanError('E_SCHEDULE_TIME_ZONE', resolved.message, { suggestion: resolved.suggestion });
}

/** Runs `work` on the bundle's schedule store (`<bundle>/.goondan/schedules.db`), closing it after. */
export function withSchedules<T>(ctx: Ctx, work: (scheduler: Scheduler) => T): T {
  const store = openScheduleStore({ path: scheduleStorePath({ rootDir: assistantBundleRoot(ctx) }) });
  try {
    // Not started: the tool only writes rows; `gdn serve` / `gdn chat` run the loop that fires them.
    return work(new Scheduler({ store, deliver: async () => {} }));
  } finally {
    store.close();
  }
}

/** Adds a schedule that wakes the calling agent instance (checked by the scheduler; nothing written if refused). */
export function scheduleForAgent(ctx: Ctx, input: Omit<ScheduleInput, 'agent' | 'instanceKey'>): ScheduleRecord {
  return withSchedules(ctx, (scheduler) =>
    scheduler.add({ ...input, agent: ctx.agentName, instanceKey: ctx.instanceKey }),
  );
}

/** `2026-05-01T09:00:00+09:00 (Asia/Seoul, Friday)`: every tool echoes the absolute time with its zone. */
export function describeAt(epochMs: number, timeZone: string): string {
  return `${isoInZone(epochMs, timeZone)} (${timeZone}, ${weekdayNameAt(epochMs, timeZone)})`;
}
