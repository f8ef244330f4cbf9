import type { Database } from 'bun:sqlite';
import type { AssistantSchema } from '../store/assistant-database.ts';

/**
 * Reminders (with an open/done state) and which schedules of `.goondan/schedules.db` are alarms or timers.
 * The firing itself is the bundle scheduler's (docs/scheduler.md); these rows are what the tools list by name.
 */
export const remindersSchema: AssistantSchema = {
  name: 'reminders',
  migrations: [
    {
      version: 1,
      up: (db: Database) => {
        db.run(`CREATE TABLE reminders_items (
          id TEXT PRIMARY KEY, agent TEXT NOT NULL, instance_key TEXT NOT NULL, title TEXT NOT NULL,
          notes TEXT NOT NULL DEFAULT '', list_name TEXT NOT NULL, due_at INTEGER, time_zone TEXT NOT NULL,
          schedule_id TEXT, status TEXT NOT NULL DEFAULT 'open', created_at INTEGER NOT NULL, completed_at INTEGER)`);
        db.run('CREATE INDEX reminders_items_owner ON reminders_items (agent, instance_key, status)');
        db.run(`CREATE TABLE reminders_clocks (
          schedule_id TEXT PRIMARY KEY, kind TEXT NOT NULL CHECK (kind IN ('alarm', 'timer')), agent TEXT NOT NULL,
          instance_key TEXT NOT NULL, label TEXT NOT NULL, created_at INTEGER NOT NULL)`);
        db.run('CREATE INDEX reminders_clocks_owner ON reminders_clocks (agent, instance_key, kind, label)');
      },
    },
  ],
};
