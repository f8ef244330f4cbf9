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

type Ctx = Pick<ToolContext, 'workdir' | 'config' | 'agentName' | 'instanceKey'>;

/** The IANA zone times are read and shown in: the call's, else config.timeZone, else the host's (always echoed). */
export function zoneOf(ctx: Ctx, requested?: string): string {
  const zone = requested ?? (typeof ctx.config.timeZone === 'string' ? ctx.config.timeZone : undefined);
  const name = zone ?? (Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    throw new GoondanError('E_SCHEDULE_TIME_ZONE', `Unknown time zone '${name}'.`, {
      suggestion: 'Use an IANA time zone name such as Asia/Seoul, Europe/London or America/New_York.',
    });
  }
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
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      weekday: 'long',
      timeZoneName: 'longOffset',
    })
      .formatToParts(epochMs)
      .map((part) => [part.type, part.value]),
  );
  const offset = String(parts.timeZoneName ?? '').replace('GMT', '') || '+00:00';
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset} (${timeZone}, ${parts.weekday})`;
}
