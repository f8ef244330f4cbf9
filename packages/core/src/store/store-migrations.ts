import type { Database } from 'bun:sqlite';

/** One schema step. `version` is the `PRAGMA user_version` the database has once `up` has run. */
export interface StoreMigration {
  readonly version: number;
  readonly description: string;
  readonly up: (db: Database) => void;
}

/**
 * Every schema change of an instance database, oldest first. Append new steps; never edit a released one,
 * because databases already at its version will not run it again.
 */
export const storeMigrations: readonly StoreMigration[] = [
  {
    version: 1,
    description: 'conversation events and bases, instance state, trace spans',
    up: (db) => {
      // AUTOINCREMENT so a seq is never reused after compaction deletes folded events: `through_seq` stays exact.
      db.run(`CREATE TABLE conversation_events (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        type TEXT NOT NULL CHECK (type IN ('append', 'replace', 'remove', 'truncate')),
        message_id TEXT,
        turn_id TEXT,
        payload TEXT,
        created_at INTEGER NOT NULL
      )`);
      db.run('CREATE INDEX conversation_events_turn ON conversation_events (turn_id) WHERE turn_id IS NOT NULL');
      db.run(`CREATE TABLE conversation_bases (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        through_seq INTEGER NOT NULL,
        entries TEXT NOT NULL,
        created_at INTEGER NOT NULL
      )`);
      db.run(`CREATE TABLE instance_state (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      )`);
      db.run(`CREATE TABLE trace_spans (
        span_id TEXT PRIMARY KEY,
        trace_id TEXT NOT NULL,
        parent_span_id TEXT,
        kind TEXT NOT NULL,
        name TEXT NOT NULL,
        started_at REAL NOT NULL,
        ended_at REAL,
        status TEXT NOT NULL,
        attributes TEXT NOT NULL
      )`);
      db.run('CREATE INDEX trace_spans_trace ON trace_spans (trace_id, started_at)');
    },
  },
];
