import { nameKey } from '../names/display-name.ts';
import type { AssistantSchema } from '../store/assistant-database.ts';

/**
 * The memory concern's tables: `memory_entries` (scope workspace, or personal with the owning profile's id) and
 * `memory_search`, an FTS5 index of each entry's search terms (rowid = entry id; see search-terms.ts).
 */
export const memorySchema: AssistantSchema = {
  name: 'memory',
  migrations: [
    {
      version: 1,
      up: (db) => {
        db.run(`CREATE TABLE memory_entries (
          id INTEGER PRIMARY KEY,
          scope TEXT NOT NULL CHECK (scope IN ('workspace', 'personal')),
          owner INTEGER,
          content TEXT NOT NULL,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL,
          CHECK ((scope = 'workspace') = (owner IS NULL))
        )`);
        db.run('CREATE INDEX memory_entries_scope_owner ON memory_entries (scope, owner)');
        db.run("CREATE VIRTUAL TABLE memory_search USING fts5 (terms, tokenize = 'unicode61 remove_diacritics 2')");
      },
    },
    {
      // Workspaces (docs/assistant.md#workspaces): a workspace memory belongs to one; NULL is the personal space,
      // where every memory saved before workspaces existed stays. Personal memories follow their person everywhere.
      version: 2,
      up: (db) => {
        db.run('ALTER TABLE memory_entries ADD COLUMN workspace TEXT');
        db.run('CREATE INDEX memory_entries_workspace ON memory_entries (workspace)');
      },
    },
    {
      // memory__update finds old_content ignoring case in every script (SQLite's lower() folds ASCII only): each entry
      // keeps its text as nameKey() has it (NFC, lowercased), searched with instr() without reading every entry.
      version: 3,
      up: (db) => {
        db.run('ALTER TABLE memory_entries ADD COLUMN content_key TEXT');
        const page = db.query<{ id: number; content: string }, [number]>(
          'SELECT id, content FROM memory_entries WHERE id > ? ORDER BY id LIMIT 500',
        );
        const fill = db.query('UPDATE memory_entries SET content_key = ? WHERE id = ?');
        for (let rows = page.all(0); rows.length > 0; rows = page.all(rows.at(-1)?.id ?? 0))
          for (const row of rows) fill.run(nameKey(row.content), row.id);
      },
    },
  ],
};
