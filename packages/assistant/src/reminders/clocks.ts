import type { ToolContext } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';
import { assistantDatabase } from '../store/assistant-database.ts';
import { checkedDueDate } from './checked-due-date.ts';
import { readWhen } from './read-when.ts';
import { remindersSchema } from './reminders-schema.ts';
import { describeAt, scheduleForAgent, withSchedules, zoneOf } from './schedule-for-agent.ts';

type Ctx = Pick<ToolContext, 'workdir' | 'config' | 'agentName' | 'instanceKey'>;
export type ClockKind = 'alarm' | 'timer';

export interface ClockView {
  id: string;
  kind: ClockKind;
  label: string;
  /** The next time it rings, absolute with its zone. */
  at: string;
  recurring: string | null;
  status: string;
}

function needLabel(label: unknown): string {
  const text = typeof label === 'string' ? label.trim() : '';
  if (text === '' || text.length > 200)
    throw new GoondanError('E_TOOL_INVALID_ARGS', 'label must be 1 to 200 characters.', {
      suggestion: 'Name it the way the user would, e.g. "tea" or "stand-up".',
    });
  return text;
}

function remember(ctx: Ctx, kind: ClockKind, scheduleId: string, label: string, now: number): void {
  try {
    assistantDatabase(ctx, remindersSchema)
      .query(
        'INSERT INTO reminders_clocks (schedule_id, kind, agent, instance_key, label, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(scheduleId, kind, ctx.agentName, ctx.instanceKey, label, now);
  } catch (error) {
    // Nothing half-written: the schedule without its name would ring but never be listed or cancelled.
    withSchedules(ctx, (scheduler) => scheduler.cancel(scheduleId));
    throw error;
  }
}

/** timers__set: rings once after `seconds`. */
export function setTimer(ctx: Ctx, input: { label: string; seconds: number; timeZone?: string }) {
  const label = needLabel(input.label);
  const seconds = input.seconds;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0 || seconds > 366 * 86_400)
    throw new GoondanError('E_TOOL_INVALID_ARGS', `seconds must be a positive number up to a year, got ${seconds}.`, {
      suggestion: 'Give the delay in seconds, e.g. 300 for five minutes; for a date and time use alarms__set.',
    });
  const timeZone = zoneOf(ctx, input.timeZone);
  const now = Date.now();
  const record = scheduleForAgent(ctx, {
    inMs: seconds * 1000,
    timeZone,
    label,
    input: `The timer '${label}' (${formatSeconds(seconds)}) is done. Tell the user.`,
  });
  remember(ctx, 'timer', record.id, label, now);
  return { id: record.id, label, seconds, at: describeAt(record.nextDueAt!, timeZone) };
}

/** alarms__set: rings at `fire_date` (words or ISO 8601, possibly recurring) or after `delay_seconds`. */
export async function setAlarm(
  ctx: Ctx,
  input: { label: string; fire_date?: string; delay_seconds?: number; timeZone?: string },
) {
  const label = needLabel(input.label);
  if ((input.fire_date === undefined) === (input.delay_seconds === undefined))
    throw new GoondanError('E_TOOL_INVALID_ARGS', 'An alarm takes exactly one of fire_date and delay_seconds.', {
      suggestion: 'Give fire_date ("tomorrow at 7am", "내일 오전 7시", "every weekday at 9") or delay_seconds.',
    });
  const timeZone = zoneOf(ctx, input.timeZone);
  const now = Date.now();
  const text = `The alarm '${label}' is ringing. Tell the user.`;
  let record: ReturnType<typeof scheduleForAgent>;
  let recurring: string | null = null;
  let notes: string[] = [];
  if (input.delay_seconds !== undefined) {
    const delay = input.delay_seconds;
    if (typeof delay !== 'number' || !Number.isFinite(delay) || delay <= 0)
      throw new GoondanError('E_TOOL_INVALID_ARGS', `delay_seconds must be a positive number, got ${delay}.`, {
        suggestion: 'Give the delay in seconds, e.g. 600 for ten minutes.',
      });
    record = scheduleForAgent(ctx, { inMs: delay * 1000, timeZone, label, input: text });
  } else {
    const when = await readWhen(String(input.fire_date), now, timeZone);
    notes = when.notes;
    if (when.kind === 'instant') {
      const at = checkedDueDate(when.epochMs, now, { field: 'fire_date', value: String(input.fire_date), timeZone });
      record = scheduleForAgent(ctx, { at: new Date(at).toISOString(), timeZone, label, input: text });
    } else {
      recurring = when.description;
      record = scheduleForAgent(ctx, { rrule: when.rrule, timeZone, label, input: text });
    }
  }
  remember(ctx, 'alarm', record.id, label, now);
  return {
    id: record.id,
    label,
    at: describeAt(record.nextDueAt!, timeZone),
    recurring,
    ...(notes.length > 0 ? { notes } : {}),
  };
}

/** alarms__list / timers__list: the calling instance's ringing-to-come ones, soonest first. */
export function listClocks(ctx: Ctx, kind: ClockKind, requestedZone?: string): { [key: string]: ClockView[] } {
  const timeZone = zoneOf(ctx, requestedZone);
  const rows = assistantDatabase(ctx, remindersSchema)
    .query<{ schedule_id: string; label: string }, [string, string, string]>(
      'SELECT schedule_id, label FROM reminders_clocks WHERE agent = ? AND instance_key = ? AND kind = ?',
    )
    .all(ctx.agentName, ctx.instanceKey, kind);
  const views = withSchedules(ctx, (scheduler) => {
    const active = new Map(
      scheduler.list({ agent: ctx.agentName, instanceKey: ctx.instanceKey }).map((record) => [record.id, record]),
    );
    return rows.flatMap((row) => {
      const record = active.get(row.schedule_id);
      if (!record || record.nextDueAt === null) return [];
      return [
        {
          id: record.id,
          kind,
          label: row.label,
          at: describeAt(record.nextDueAt, timeZone),
          recurring: record.kind === 'at' ? null : record.expression,
          status: record.status,
          due: record.nextDueAt,
        },
      ];
    });
  });
  views.sort((a, b) => a.due - b.due);
  return { [`${kind}s`]: views.map(({ due: _due, ...view }) => view) };
}

/** alarms__cancel / timers__cancel: every active one of that label (case-insensitive) stops. */
export function cancelClock(ctx: Ctx, kind: ClockKind, label: string) {
  const wanted = needLabel(label);
  const { [`${kind}s`]: active = [] } = listClocks(ctx, kind);
  const matches = active.filter((view) => view.label.toLowerCase() === wanted.toLowerCase());
  if (matches.length === 0) {
    throw new GoondanError('E_SCHEDULE_NOT_FOUND', `No active ${kind} named '${wanted}'.`, {
      suggestion:
        active.length > 0
          ? `Active ${kind}s: ${active.map((view) => `'${view.label}'`).join(', ')}.`
          : `There is no active ${kind}; ${kind}s__list shows them.`,
    });
  }
  withSchedules(ctx, (scheduler) => {
    for (const view of matches) scheduler.cancel(view.id);
  });
  return { cancelled: matches.map(({ id, label: name, at }) => ({ id, label: name, at })) };
}

function formatSeconds(seconds: number): string {
  const parts: string[] = [];
  let rest = Math.round(seconds);
  for (const [unit, size] of [
    ['h', 3600],
    ['min', 60],
    ['s', 1],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)} ${unit}`);
      rest %= size;
    }
  }
  return parts.join(' ') || `${seconds} s`;
}
