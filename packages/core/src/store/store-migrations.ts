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
  {
    version: 2,
    description: 'approvals, conversation grants, tool result checkpoints, audit log',
    up: (db) => {
      db.run(`CREATE TABLE approvals (
        id TEXT PRIMARY KEY,
        agent TEXT NOT NULL,
        instance_key TEXT NOT NULL,
        turn_id TEXT,
        trace_id TEXT,
        tool_call_id TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        category TEXT NOT NULL,
        args TEXT NOT NULL,
        rule TEXT NOT NULL,
        source TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'expired', 'cancelled')),
        scope TEXT CHECK (scope IS NULL OR scope IN ('once', 'conversation')),
        decided_by TEXT,
        reason TEXT,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        decided_at INTEGER
      )`);
      db.run('CREATE INDEX approvals_status ON approvals (status, created_at)');
      db.run('CREATE INDEX approvals_call ON approvals (tool_call_id)');
      // "Approve for this conversation": cleared when the conversation is reset.
      db.run(`CREATE TABLE approval_grants (
        tool_name TEXT PRIMARY KEY,
        approval_id TEXT,
        granted_by TEXT,
        created_at INTEGER NOT NULL
      )`);
      // Results of a step's calls that finished while others still wait (approval): kept across a restart.
      db.run(`CREATE TABLE tool_result_checkpoints (
        tool_call_id TEXT PRIMARY KEY,
        turn_id TEXT,
        result TEXT NOT NULL,
        created_at INTEGER NOT NULL
      )`);
      db.run(`CREATE TABLE audit_log (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        agent TEXT NOT NULL,
        instance_key TEXT NOT NULL,
        turn_id TEXT,
        tool_call_id TEXT NOT NULL,
        trace_id TEXT,
        tool_name TEXT NOT NULL,
        category TEXT,
        source TEXT,
        decision TEXT NOT NULL,
        rule TEXT,
        direct INTEGER NOT NULL DEFAULT 0,
        approval_id TEXT,
        approval_outcome TEXT,
        approval_scope TEXT,
        approved_by TEXT,
        approval_reason TEXT,
        duration_ms REAL NOT NULL,
        status TEXT NOT NULL,
        error_code TEXT,
        args TEXT,
        output TEXT
      )`);
      db.run('CREATE INDEX audit_log_at ON audit_log (at)');
      db.run('CREATE INDEX audit_log_tool ON audit_log (tool_name, at)');
    },
  },
  {
    version: 3,
    description: 'inbox of sent events accepted for the instance and not handled yet',
    up: (db) => {
      db.run(`CREATE TABLE inbox_events (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        event_id TEXT NOT NULL UNIQUE,
        payload TEXT NOT NULL,
        created_at INTEGER NOT NULL
      )`);
    },
  },
  {
    version: 4,
    description: 'ids of events whose turn appended its input, so a redelivered event is not run twice',
    up: (db) => {
      db.run(`CREATE TABLE handled_events (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        event_id TEXT NOT NULL UNIQUE,
        turn_id TEXT,
        created_at INTEGER NOT NULL
      )`);
    },
  },
  {
    version: 5,
    description: 'spans still running, found at once when a new process closes those a dead one left',
    up: (db) => {
      db.run("CREATE INDEX trace_spans_running ON trace_spans (trace_id) WHERE status = 'running'");
    },
  },
];
