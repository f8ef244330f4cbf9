import type { StoreMigration } from '../store/store-migrations.ts';

/** Schema steps of the bundle's schedule database (`.goondan/schedules.db`). Append; never edit a released one. */
export const scheduleStoreMigrations: readonly StoreMigration[] = [
  {
    version: 1,
    description: 'schedules and their firings',
    up: (db) => {
      db.run(`CREATE TABLE schedules (
        id TEXT PRIMARY KEY,
        agent TEXT NOT NULL,
        instance_key TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('at', 'rrule', 'cron')),
        expression TEXT NOT NULL,
        time_zone TEXT NOT NULL,
        label TEXT NOT NULL,
        input TEXT NOT NULL,
        missed_policy TEXT NOT NULL CHECK (missed_policy IN ('fire-once-late', 'skip')),
        status TEXT NOT NULL CHECK (status IN ('active', 'done', 'cancelled')),
        next_due_at INTEGER,
        last_fired_at INTEGER,
        created_at INTEGER NOT NULL
      )`);
      db.run("CREATE INDEX schedules_due ON schedules (next_due_at) WHERE status = 'active'");
      // One row per occurrence taken for delivery; the event id is the idempotency key the instance checks.
      db.run(`CREATE TABLE schedule_firings (
        event_id TEXT PRIMARY KEY,
        schedule_id TEXT NOT NULL,
        agent TEXT NOT NULL,
        instance_key TEXT NOT NULL,
        scheduled_at INTEGER NOT NULL,
        fired_at INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('delivering', 'delivered')),
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        next_attempt_at INTEGER NOT NULL,
        event TEXT NOT NULL,
        delivered_at INTEGER
      )`);
      db.run("CREATE INDEX schedule_firings_pending ON schedule_firings (next_attempt_at) WHERE status = 'delivering'");
    },
  },
];
