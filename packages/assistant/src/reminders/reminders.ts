import { GoondanError, newId, type ToolContext } from '@goondan/core';
import { assistantDatabase } from '../store/assistant-database.ts';
import { checkedDueDate } from './checked-due-date.ts';
import { readWhen } from './read-when.ts';
import { remindersSchema } from './reminders-schema.ts';
import { describeAt, scheduleForAgent, withSchedules, zoneOf } from './schedule-for-agent.ts';

type Ctx = Pick<ToolContext, 'workdir' | 'config' | 'agentName' | 'instanceKey'>;

interface ReminderRow {
  id: string;
  title: string;
  notes: string;
  list_name: string;
  due_at: number | null;
  time_zone: string;
  schedule_id: string | null;
  status: 'open' | 'done';
  completed_at: number | null;
}

function text(value: unknown, name: string, max: number, required: boolean): string {
  const trimmed = typeof value === 'string' ? value.trim() : '';
  if ((required && trimmed === '') || trimmed.length > max)
    throw new GoondanError('E_TOOL_INVALID_ARGS', `${name} must be ${required ? '1' : '0'} to ${max} characters.`, {
      suggestion: `Give a short ${name}.`,
    });
  return trimmed;
}

/** reminders__create: a reminder on a list; with due_date it also wakes the agent then (a schedule). */
export async function createReminder(
  ctx: Ctx,
  input: { title: string; due_date?: string; notes?: string; list_name?: string; timeZone?: string },
) {
  const title = text(input.title, 'title', 200, true);
  const notes = text(input.notes, 'notes', 2000, false);
  const listName = text(input.list_name, 'list_name', 100, false) || 'Reminders';
  const timeZone = zoneOf(ctx, input.timeZone);
  const now = Date.now();
  const db = assistantDatabase(ctx, remindersSchema);
  let dueAt: number | null = null;
  let scheduleId: string | null = null;
  if (input.due_date !== undefined) {
    const when = await readWhen(String(input.due_date), now, timeZone);
    if (when.kind !== 'instant')
      throw new GoondanError('E_TOOL_INVALID_ARGS', `A reminder is due once; '${input.due_date}' repeats.`, {
        suggestion: 'For something that repeats use alarms__set with the same words.',
      });
    const at = checkedDueDate(when.epochMs, now, { field: 'due_date', value: String(input.due_date), timeZone });
    const record = scheduleForAgent(ctx, {
      at: new Date(at).toISOString(),
      timeZone,
      label: title,
      input: `Reminder due: ${title}${notes ? ` (${notes})` : ''}. Remind the user.`,
    });
    dueAt = record.nextDueAt;
    scheduleId = record.id;
  }
  const id = newId('rem');
  try {
    db.query(
      `INSERT INTO reminders_items (id, agent, instance_key, title, notes, list_name, due_at, time_zone, schedule_id,
         created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(id, ctx.agentName, ctx.instanceKey, title, notes, listName, dueAt, timeZone, scheduleId, now);
  } catch (error) {
    if (scheduleId) withSchedules(ctx, (scheduler) => scheduler.cancel(scheduleId));
    throw error;
  }
  return { id, title, list_name: listName, due: dueAt === null ? null : describeAt(dueAt, timeZone), status: 'open' };
}

function view(row: ReminderRow, timeZone: string) {
  return {
    id: row.id,
    title: row.title,
    ...(row.notes ? { notes: row.notes } : {}),
    list_name: row.list_name,
    due: row.due_at === null ? null : describeAt(row.due_at, timeZone),
    status: row.status,
    ...(row.completed_at === null ? {} : { completed: describeAt(row.completed_at, timeZone) }),
  };
}

/** reminders__list: open ones (and done ones with show_completed), due first then by creation. */
export function listReminders(ctx: Ctx, input: { list_name?: string; show_completed?: boolean; timeZone?: string }) {
  const timeZone = zoneOf(ctx, input.timeZone);
  const rows = assistantDatabase(ctx, remindersSchema)
    .query<ReminderRow, [string, string, number, string | null]>(
      `SELECT * FROM reminders_items WHERE agent = ? AND instance_key = ? AND (status = 'open' OR ? = 1)
         AND (?4 IS NULL OR list_name = ?4 COLLATE NOCASE)
       ORDER BY status = 'done', due_at IS NULL, due_at, created_at, id`,
    )
    .all(ctx.agentName, ctx.instanceKey, input.show_completed ? 1 : 0, input.list_name?.trim() || null);
  return { reminders: rows.map((row) => view(row, timeZone)) };
}

/** reminders__complete: the open reminder with that title (case-insensitive) is done; its alarm no longer rings. */
export function completeReminder(ctx: Ctx, input: { title: string; timeZone?: string }) {
  const title = text(input.title, 'title', 200, true);
  const timeZone = zoneOf(ctx, input.timeZone);
  const db = assistantDatabase(ctx, remindersSchema);
  const open = db
    .query<ReminderRow, [string, string]>(
      `SELECT * FROM reminders_items WHERE agent = ? AND instance_key = ? AND status = 'open'
       ORDER BY due_at IS NULL, due_at, created_at`,
    )
    .all(ctx.agentName, ctx.instanceKey);
  const titled = open.filter((row) => row.title.toLowerCase() === title.toLowerCase());
  const match = titled[0];
  if (!match) {
    throw new GoondanError('E_SCHEDULE_NOT_FOUND', `No open reminder titled '${title}'.`, {
      suggestion:
        open.length > 0
          ? `Open reminders: ${open
              .slice(0, 10)
              .map((row) => `'${row.title}'`)
              .join(', ')}.`
          : 'There is no open reminder; reminders__list with show_completed shows done ones.',
    });
  }
  const now = Date.now();
  db.query(`UPDATE reminders_items SET status = 'done', completed_at = ? WHERE id = ? AND status = 'open'`).run(
    now,
    match.id,
  );
  if (match.schedule_id) withSchedules(ctx, (scheduler) => scheduler.cancel(match.schedule_id!));
  const done: ReturnType<typeof view> & { also_open?: { count: number; next_due: string | null } } = view(
    { ...match, status: 'done', completed_at: now },
    timeZone,
  );
  // Several open with the title: the soonest due was completed, and the model is told how many are left.
  const next = titled[1];
  if (next) {
    done.also_open = {
      count: titled.length - 1,
      next_due: next.due_at === null ? null : describeAt(next.due_at, timeZone),
    };
  }
  return done;
}
