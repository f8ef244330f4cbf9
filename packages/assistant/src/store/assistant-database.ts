import type { Database } from 'bun:sqlite';
import { join } from 'node:path';
import { openInstanceDatabase, type ReopeningDatabase, reopeningDatabase, type ToolContext } from '@goondan/core';
import { assistantBundleRoot } from './assistant-bundle-root.ts';

/** One schema step of one concern (memory, kanban, people, reminders…): its tables carry the concern's prefix. */
export interface AssistantMigration {
  version: number;
  up: (db: Database) => void;
}

/** A concern's schema: `name` is its table prefix (e.g. `kanban`), `migrations` its steps in version order. */
export interface AssistantSchema {
  name: string;
  migrations: readonly AssistantMigration[];
}

const open = new Map<string, { handle: ReopeningDatabase; ready: Set<string> }>();

/** The table recording each concern's schema version (concerns migrate independently of each other). */
const base = [
  {
    version: 1,
    description: 'assistant_schema: the schema version of each concern',
    up: (db: Database) => {
      db.run('CREATE TABLE IF NOT EXISTS assistant_schema (concern TEXT PRIMARY KEY, version INTEGER NOT NULL)');
    },
  },
];

function migrateConcern(db: Database, schema: AssistantSchema): void {
  // IMMEDIATE: two processes opening the file at once do not both run a step; the loser waits, then skips.
  db.transaction(() => {
    const row = db
      .query<{ version: number }, [string]>('SELECT version FROM assistant_schema WHERE concern = ?')
      .get(schema.name);
    const current = row?.version ?? 0;
    let reached = current;
    for (const step of [...schema.migrations].sort((a, b) => a.version - b.version)) {
      if (step.version <= current) continue;
      step.up(db);
      reached = step.version;
    }
    if (reached !== current)
      db.query('INSERT OR REPLACE INTO assistant_schema (concern, version) VALUES (?, ?)').run(schema.name, reached);
  }).immediate();
}

/** `<bundle>/.goondan/assistant.db` for a bundle directory. */
export function assistantDatabasePath(bundleDir: string): string {
  return join(bundleDir, '.goondan', 'assistant.db');
}

/**
 * The assistant's SQLite database of the calling agent's bundle, `<bundle>/.goondan/assistant.db` (WAL,
 * busy_timeout, foreign keys), with `schema`'s tables brought up to date. One connection per file per process,
 * kept open; several processes may share the file.
 *
 * @example
 * const db = assistantDatabase(ctx, { name: 'kanban', migrations: kanbanMigrations });
 */
export function assistantDatabase(ctx: Pick<ToolContext, 'workdir' | 'config'>, schema: AssistantSchema): Database {
  return assistantDatabaseAt(assistantDatabasePath(assistantBundleRoot(ctx)), schema);
}

/**
 * Same as assistantDatabase, by path (tests, benchmarks). The file deleted or replaced while this process has it open
 * (`rm -rf .goondan` under gdn serve) is opened again at its path, created afresh with each concern's schema as at a
 * first start: what a tool writes from then on is kept, not committed into the unlinked file and lost.
 */
export function assistantDatabaseAt(path: string, schema: AssistantSchema): Database {
  let entry = open.get(path);
  if (!entry) {
    const ready = new Set<string>();
    const handle = reopeningDatabase({
      path,
      open: (file) => openInstanceDatabase(file, { migrations: base }),
      onReopened: (file) => {
        ready.clear();
        console.error(
          `assistant: ${file} was deleted or replaced while this agent process had it open; opened it again at its path (what it held is gone, what is written now is kept)`,
        );
      },
    });
    entry = { handle, ready };
    open.set(path, entry);
  }
  const db = entry.handle.current();
  if (!entry.ready.has(schema.name)) {
    migrateConcern(db, schema);
    entry.ready.add(schema.name);
  }
  return db;
}
