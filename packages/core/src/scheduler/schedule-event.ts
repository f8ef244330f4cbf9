import type { AgentEvent } from '../agent/agent-event.ts';
import type { ScheduleRecord } from './schedule-types.ts';

export const SCHEDULE_FIRED = 'schedule.fired';
/** The source of scheduled turns: permissions match it as `system:scheduler` (unattended, nobody at the keyboard). */
export const SCHEDULER_SOURCE = { kind: 'system', name: 'scheduler' } as const;

/** The idempotent id of one occurrence: the same on every redelivery, so the instance runs it once. */
export function firingEventId(scheduleId: string, scheduledAt: number): string {
  return `sched_${scheduleId}_${scheduledAt}`;
}

/** The AgentEvent a firing delivers: `schedule.fired` from `system:scheduler`, the schedule's text as input. */
export function scheduleFiredEvent(options: {
  schedule: ScheduleRecord;
  scheduledAt: number;
  firedAt: number;
  late: boolean;
}): AgentEvent {
  const { schedule, scheduledAt, firedAt, late } = options;
  return {
    id: firingEventId(schedule.id, scheduledAt),
    type: SCHEDULE_FIRED,
    input: schedule.input,
    source: { ...SCHEDULER_SOURCE },
    data: {
      scheduleId: schedule.id,
      label: schedule.label,
      scheduledAt: new Date(scheduledAt).toISOString(),
      firedAt: new Date(firedAt).toISOString(),
      latenessMs: Math.max(0, firedAt - scheduledAt),
      late,
    },
    createdAt: new Date(firedAt).toISOString(),
  };
}
