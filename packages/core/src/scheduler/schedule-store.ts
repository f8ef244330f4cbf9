import type { Database, SQLQueryBindings } from 'bun:sqlite';
import { join } from 'node:path';
import type { AgentEvent } from '../agent/agent-event.ts';
import { GoondanError } from '../errors/goondan-error.ts';
import { openInstanceDatabase } from '../store/open-instance-database.ts';
import { type ReopeningDatabase, reopeningDatabase } from '../store/reopening-database.ts';
import { toStoreError } from '../store/to-store-error.ts';
import { scheduleCountQuery, scheduleListQuery } from './schedule-list-query.ts';
import { scheduleStoreMigrations } from './schedule-store-migrations.ts';
import type { FiringRecord, ScheduleFilter, ScheduleRecord, ScheduleStatus } from './schedule-types.ts';

interface ScheduleRow {
  id: string;
  agent: string;
  instance_key: string;
  kind: ScheduleRecord['kind'];
  expression: string;
  time_zone: string;
  label: string;
  input: string;
  missed_policy: ScheduleRecord['missedPolicy'];
  status: ScheduleStatus;
  next_due_at: number | null;
  last_fired_at: number | null;
  created_at: number;
}

interface FiringRow {
  event_id: string;
  schedule_id: string;
  agent: string;
  instance_key: string;
  scheduled_at: number;
  fired_at: number;
  status: FiringRecord['status'];
  attempts: number;
  last_error: string | null;
  next_attempt_at: number;
  event: string;
}

const toSchedule = (row: ScheduleRow): ScheduleRecord => ({
  id: row.id,
  agent: row.agent,
  instanceKey: row.instance_key,
  kind: row.kind,
  expression: row.expression,
  timeZone: row.time_zone,
  label: row.label,
  input: row.input,
  missedPolicy: row.missed_policy,
  status: row.status,
  nextDueAt: row.next_due_at,
  lastFiredAt: row.last_fired_at,
  createdAt: row.created_at,
});

const toFiring = (row: FiringRow): FiringRecord => ({
  eventId: row.event_id,
  scheduleId: row.schedule_id,
  agent: row.agent,
  instanceKey: row.instance_key,
  scheduledAt: row.scheduled_at,
  firedAt: row.fired_at,
  status: row.status,
  attempts: row.attempts,
  lastError: row.last_error,
  nextAttemptAt: row.next_attempt_at,
  event: JSON.parse(row.event),
});

/** How one occurrence is taken: the schedule moves on and (unless skipped) a firing row is written, together. */
export interface ClaimOptions {
  schedule: ScheduleRecord;
  /** The schedule's next occurrence after this one (null: it is done). */
  nextDueAt: number | null;
  /** The event to deliver, or null when the occurrence is skipped (missed policy `skip`). */
  event: AgentEvent | null;
  scheduledAt: number;
  firedAt: number;
}

/** Which part of `ScheduleStore.list` to read: at most `limit` schedules, those after `after` in its order. */
export interface ScheduleListPage {
  limit?: number;
  after?: Pick<ScheduleRecord, 'nextDueAt' | 'createdAt' | 'id'>;
}

/**
 * The bundle's schedules and their firings, in SQLite (WAL). Every write commits before it returns. Several
 * processes may share the file: an occurrence is claimed with a compare-and-set on `next_due_at`, so only one
 * of them fires it.
 *
 * @example
 * const store = openScheduleStore({ path: '.goondan/schedules.db' });
 * store.list({ agent: 'assistant' });
 */
export class ScheduleStore {
  private readonly handle: ReopeningDatabase;
  private claimOn: { db: Database; claim: (options: ClaimOptions) => boolean } | undefined;

  /** `db` is one connection; a ReopeningDatabase (openScheduleStore) is opened again when its file is deleted. */
  constructor(db: Database | ReopeningDatabase) {
    this.handle = 'current' in db ? db : { path: db.filename, current: () => db, close: () => db.close() };
  }

  /** The open database: after its file was deleted or replaced (openScheduleStore), the file at its path now. */
  get db(): Database {
    return this.handle.current();
  }

  private claimNow(options: ClaimOptions): boolean {
    const db = this.db;
    if (this.claimOn?.db !== db) this.claimOn = { db, claim: claimTransaction(db) };
    return this.claimOn.claim(options);
  }

  /**
   * Runs a write a person or a client asked for (add, cancel). Another process holding the file's write lock for
   * longer than the busy timeout (5 s) threw a bare SQLiteError, printed by gdn as an unexpected failure with its
   * stack; it is E_STORE_OPEN saying nothing was written.
   */
  private write<T>(what: string, work: () => T): T {
    try {
      return work();
    } catch (thrown) {
      const code = String((thrown as { code?: unknown })?.code ?? '');
      if (!code.startsWith('SQLITE_BUSY') && !code.startsWith('SQLITE_LOCKED'))
        throw toStoreError(thrown, this.handle.path, 'Schedule database');
      throw new GoondanError(
        'E_STORE_OPEN',
        `Schedule database ${this.handle.path} is locked: another process has been writing it for more than 5 s, so the schedule was not ${what}.`,
        {
          suggestion: `Try again in a moment; if it stays locked, find the process holding ${this.handle.path} (a gdn serve or gdn chat of this bundle that hangs).`,
          cause: thrown,
        },
      );
    }
  }

  insert(record: ScheduleRecord): void {
    this.write('added', () => this.insertNow(record));
  }

  private insertNow(record: ScheduleRecord): void {
    this.db
      .query(
        `INSERT INTO schedules (id, agent, instance_key, kind, expression, time_zone, label, input, missed_policy,
           status, next_due_at, last_fired_at, created_at)
         VALUES ($id, $agent, $instanceKey, $kind, $expression, $timeZone, $label, $input, $missedPolicy, $status,
           $nextDueAt, $lastFiredAt, $createdAt)`,
      )
      .run({ ...record });
  }

  get(id: string): ScheduleRecord | null {
    const row = this.db.query<ScheduleRow, [string]>('SELECT * FROM schedules WHERE id = ?').get(id);
    return row ? toSchedule(row) : null;
  }

  /**
   * Schedules by next due time (active first), then by creation. `page.limit` reads at most that many; `page.after`
   * pages on from a schedule (the last one of a page): those after it in that order, wherever it is now.
   */
  list(filter: ScheduleFilter = {}, page: ScheduleListPage = {}): ScheduleRecord[] {
    const { sql, params } = scheduleListQuery(filter, page);
    return this.db
      .query<ScheduleRow, SQLQueryBindings[]>(sql)
      .all(...params)
      .map(toSchedule);
  }

  /** How many schedules `list(filter)` would give, without reading them (an index has every column tested). */
  count(filter: ScheduleFilter = {}): number {
    const { sql, params } = scheduleCountQuery(filter);
    return this.db.query<{ n: number }, SQLQueryBindings[]>(sql).get(...params)?.n ?? 0;
  }

  /**
   * Active schedules due at or before `now`, oldest occurrence first; `after` pages on from the last one of a page
   * (a host that fires only some targets reads past the due schedules of the others).
   */
  due(now: number, limit = 1000, after?: Pick<ScheduleRecord, 'nextDueAt' | 'id'>): ScheduleRecord[] {
    return this.db
      .query<ScheduleRow, [number, number | null, string, number]>(
        `SELECT * FROM schedules WHERE status = 'active' AND next_due_at <= ?1
           AND (?2 IS NULL OR next_due_at > ?2 OR (next_due_at = ?2 AND id > ?3))
         ORDER BY next_due_at, id LIMIT ?4`,
      )
      .all(now, after?.nextDueAt ?? null, after?.id ?? '', limit)
      .map(toSchedule);
  }

  /** The earliest upcoming occurrences (to decide when to wake). */
  upcoming(limit: number): { agent: string; instanceKey: string; nextDueAt: number }[] {
    return this.db
      .query<{ agent: string; instance_key: string; next_due_at: number }, [number]>(
        `SELECT agent, instance_key, next_due_at FROM schedules WHERE status = 'active' AND next_due_at IS NOT NULL
         ORDER BY next_due_at LIMIT ?`,
      )
      .all(limit)
      .map((row) => ({ agent: row.agent, instanceKey: row.instance_key, nextDueAt: row.next_due_at }));
  }

  /** Takes one occurrence; false when another process (or an earlier call) already took it. */
  claim(options: ClaimOptions): boolean {
    return this.claimNow(options);
  }

  /** True when it was active and is now cancelled. Firings already taken are still delivered. */
  cancel(id: string): boolean {
    return this.write('cancelled', () => this.cancelNow(id));
  }

  private cancelNow(id: string): boolean {
    return (
      this.db
        .query<unknown, [string]>(
          `UPDATE schedules SET status = 'cancelled', next_due_at = NULL WHERE id = ? AND status = 'active'`,
        )
        .run(id).changes === 1
    );
  }

  /** Firings taken and not yet accepted by their instance, oldest occurrence first. */
  undelivered(): FiringRecord[] {
    return this.db
      .query<FiringRow, []>(
        `SELECT * FROM schedule_firings WHERE status = 'delivering' ORDER BY scheduled_at, event_id`,
      )
      .all()
      .map(toFiring);
  }

  /**
   * Undelivered firings whose next attempt is due by `now`, a page at a time (`after`: the last of the previous
   * page). The scheduler read every undelivered firing, events and all, at each wake and each pass: 10,000 firings
   * an instance could not take (a corrupt database) held the loop over a second each time.
   */
  retryDue(now: number, limit: number, after?: Pick<FiringRecord, 'scheduledAt' | 'eventId'>): FiringRecord[] {
    return this.db
      .query<FiringRow, [number, number | null, string, number]>(
        `SELECT * FROM schedule_firings WHERE status = 'delivering' AND next_attempt_at <= ?1
           AND (?2 IS NULL OR scheduled_at > ?2 OR (scheduled_at = ?2 AND event_id > ?3))
         ORDER BY scheduled_at, event_id LIMIT ?4`,
      )
      .all(now, after?.scheduledAt ?? null, after?.eventId ?? '', limit)
      .map(toFiring);
  }

  /** The earliest next attempt of each target's undelivered firings (to decide when to wake; no events read). */
  retryTimes(): { agent: string; instanceKey: string; nextAttemptAt: number }[] {
    return this.db
      .query<{ agent: string; instance_key: string; next: number }, []>(
        `SELECT agent, instance_key, min(next_attempt_at) AS next FROM schedule_firings WHERE status = 'delivering'
         GROUP BY agent, instance_key`,
      )
      .all()
      .map((row) => ({ agent: row.agent, instanceKey: row.instance_key, nextAttemptAt: row.next }));
  }

  firing(eventId: string): FiringRecord | null {
    const row = this.db.query<FiringRow, [string]>('SELECT * FROM schedule_firings WHERE event_id = ?').get(eventId);
    return row ? toFiring(row) : null;
  }

  /**
   * Marks a firing delivered. Its event loses its input (up to 16,000 characters): a delivered firing is history,
   * never sent again, and a cron of every second kept a week of them whole, over a gigabyte a day.
   */
  markDelivered(eventId: string, at: number): void {
    this.db
      .query<unknown, [number, string]>(
        `UPDATE schedule_firings SET status = 'delivered', delivered_at = ?, attempts = attempts + 1,
           event = json_remove(event, '$.input') WHERE event_id = ?`,
      )
      .run(at, eventId);
  }

  /** Forgets a firing that can never be delivered (its agent left the bundle): it is not retried. */
  abandon(eventId: string): void {
    this.db.query<unknown, [string]>('DELETE FROM schedule_firings WHERE event_id = ?').run(eventId);
  }

  markFailed(eventId: string, error: string, nextAttemptAt: number): void {
    this.db
      .query<unknown, [string, number, string]>(
        `UPDATE schedule_firings SET attempts = attempts + 1, last_error = ?, next_attempt_at = ? WHERE event_id = ?`,
      )
      .run(error, nextAttemptAt, eventId);
  }

  /** Forgets delivered firings older than `before` (the schedules themselves stay). */
  pruneDelivered(before: number): void {
    this.db
      .query<unknown, [number]>(`DELETE FROM schedule_firings WHERE status = 'delivered' AND delivered_at < ?`)
      .run(before);
  }

  close(): void {
    this.handle.close();
  }
}

/** The claim of one occurrence as one transaction of `db`. */
function claimTransaction(db: Database): (options: ClaimOptions) => boolean {
  return db.transaction((options: ClaimOptions) => {
    const { schedule, nextDueAt, event, scheduledAt, firedAt } = options;
    const moved = db
      .query<unknown, [number | null, string, number | null, string, number]>(
        `UPDATE schedules SET next_due_at = ?, status = ?, last_fired_at = coalesce(?, last_fired_at)
         WHERE id = ? AND status = 'active' AND next_due_at = ?`,
      )
      .run(nextDueAt, nextDueAt === null ? 'done' : 'active', event ? firedAt : null, schedule.id, scheduledAt);
    if (moved.changes !== 1) return false;
    if (event) {
      db.query<unknown, [string, string, string, string, number, number, number, string]>(
        `INSERT OR IGNORE INTO schedule_firings
           (event_id, schedule_id, agent, instance_key, scheduled_at, fired_at, status, next_attempt_at, event)
         VALUES (?, ?, ?, ?, ?, ?, 'delivering', ?, ?)`,
      ).run(
        event.id,
        schedule.id,
        schedule.agent,
        schedule.instanceKey,
        scheduledAt,
        firedAt,
        firedAt,
        JSON.stringify(event),
      );
    }
    return true;
  }) as unknown as (options: ClaimOptions) => boolean;
}

/**
 * Opens (creating it if needed) a schedule database; the bundle's lives at `<bundle>/.goondan/schedules.db`. The
 * store follows its path: deleted or replaced while it is open (`rm -rf .goondan` under gdn serve), it is opened
 * again at the next read or write, created afresh as at a first start, and `onReopened` is told. What the old file
 * held is gone; what is written from then on is kept (it went into the deleted file, lost at the next start).
 */
export function openScheduleStore(options: { path: string; onReopened?: (path: string) => void }): ScheduleStore {
  return new ScheduleStore(
    reopeningDatabase({
      path: options.path,
      open: (path) => openInstanceDatabase(path, { migrations: scheduleStoreMigrations }),
      ...(options.onReopened ? { onReopened: options.onReopened } : {}),
    }),
  );
}

/** Where the bundle-level schedule store lives: `<bundle>/.goondan/schedules.db` (beside instances/). */
export function scheduleStorePath(options: { rootDir: string; stateDir?: string }): string {
  return join(options.stateDir ?? join(options.rootDir, '.goondan'), 'schedules.db');
}
