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
  {
    version: 2,
    description: 'the order schedules are listed in, indexed, so a page reads its own rows only',
    up: (db) => {
      // next_due_at, or '' when NULL: a text sorts after every number, so done and cancelled schedules come last,
      // as `ORDER BY next_due_at IS NULL, next_due_at` put them, in one column a cursor's row value can seek on.
      // VIRTUAL: computed when read, nothing stored in the rows (ALTER TABLE can add only such a generated column).
      db.run(`ALTER TABLE schedules ADD COLUMN list_due AS (coalesce(next_due_at, '')) VIRTUAL`);
      // Every column list and count test is in each index: a page and its total read no wide row they do not show.
      db.run('CREATE INDEX schedules_list ON schedules (list_due, created_at, id, status, agent, instance_key)');
      db.run('CREATE INDEX schedules_list_status ON schedules (status, list_due, created_at, id, agent, instance_key)');
    },
  },
];
