import type { AssistantSchema } from '../store/assistant-database.ts';

/**
 * The kanban tables of the assistant database. Card positions are 1-based and dense within a column (1..n);
 * every change that moves cards runs in one IMMEDIATE transaction, so a failed move leaves them as they were.
 */
export const kanbanSchema: AssistantSchema = {
  name: 'kanban',
  migrations: [
    {
      version: 1,
      up: (db) => {
        db.run(`CREATE TABLE kanban_boards (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          name TEXT NOT NULL UNIQUE COLLATE NOCASE,
          created_at INTEGER NOT NULL
        )`);
        db.run(`CREATE TABLE kanban_columns (
          board_id INTEGER NOT NULL REFERENCES kanban_boards (id) ON DELETE CASCADE,
          name TEXT NOT NULL COLLATE NOCASE,
          position INTEGER NOT NULL,
          PRIMARY KEY (board_id, name)
        )`);
        db.run(`CREATE TABLE kanban_cards (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          board_id INTEGER NOT NULL REFERENCES kanban_boards (id) ON DELETE CASCADE,
          column_name TEXT NOT NULL COLLATE NOCASE,
          position INTEGER NOT NULL,
          title TEXT NOT NULL,
          description TEXT,
          priority TEXT CHECK (priority IS NULL OR priority IN ('low', 'medium', 'high', 'urgent')),
          labels TEXT NOT NULL DEFAULT '[]',
          assignee TEXT,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL,
          FOREIGN KEY (board_id, column_name) REFERENCES kanban_columns (board_id, name)
        )`);
        db.run('CREATE INDEX kanban_cards_column ON kanban_cards (board_id, column_name, position)');
      },
    },
    {
      // Workspaces (docs/assistant.md#workspaces): a board belongs to one ('' is the personal space, where every
      // board made before workspaces stays) and names are unique per workspace. SQLite cannot drop the old
      // UNIQUE (name), so the three tables are rebuilt under new names, the old ones dropped children first (no
      // cascade fires: nothing references them any more) and the new ones renamed (references follow the rename).
      version: 2,
      up: (db) => {
        db.run(`CREATE TABLE kanban_boards_v2 (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          workspace TEXT NOT NULL DEFAULT '',
          name TEXT NOT NULL COLLATE NOCASE,
          created_at INTEGER NOT NULL,
          UNIQUE (workspace, name)
        )`);
        db.run(`CREATE TABLE kanban_columns_v2 (
          board_id INTEGER NOT NULL REFERENCES kanban_boards_v2 (id) ON DELETE CASCADE,
          name TEXT NOT NULL COLLATE NOCASE,
          position INTEGER NOT NULL,
          PRIMARY KEY (board_id, name)
        )`);
        db.run(`CREATE TABLE kanban_cards_v2 (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          board_id INTEGER NOT NULL REFERENCES kanban_boards_v2 (id) ON DELETE CASCADE,
          column_name TEXT NOT NULL COLLATE NOCASE,
          position INTEGER NOT NULL,
          title TEXT NOT NULL,
          description TEXT,
          priority TEXT CHECK (priority IS NULL OR priority IN ('low', 'medium', 'high', 'urgent')),
          labels TEXT NOT NULL DEFAULT '[]',
          assignee TEXT,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL,
          FOREIGN KEY (board_id, column_name) REFERENCES kanban_columns_v2 (board_id, name)
        )`);
        db.run(
          "INSERT INTO kanban_boards_v2 (id, workspace, name, created_at) SELECT id, '', name, created_at FROM kanban_boards",
        );
        db.run('INSERT INTO kanban_columns_v2 SELECT board_id, name, position FROM kanban_columns');
        db.run(`INSERT INTO kanban_cards_v2 SELECT id, board_id, column_name, position, title, description, priority, labels,
          assignee, created_at, updated_at FROM kanban_cards`);
        // Ids keep counting from where they were, so a deleted card's id is not given to a new one.
        for (const table of ['kanban_boards', 'kanban_cards']) {
          const old = db.query<{ seq: number }, [string]>('SELECT seq FROM sqlite_sequence WHERE name = ?').get(table);
          if (!old) continue;
          db.query('DELETE FROM sqlite_sequence WHERE name = ?').run(`${table}_v2`);
          db.query('INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)').run(`${table}_v2`, old.seq);
        }
        db.run('DROP TABLE kanban_cards');
        db.run('DROP TABLE kanban_columns');
        db.run('DROP TABLE kanban_boards');
        db.run('ALTER TABLE kanban_boards_v2 RENAME TO kanban_boards');
        db.run('ALTER TABLE kanban_columns_v2 RENAME TO kanban_columns');
        db.run('ALTER TABLE kanban_cards_v2 RENAME TO kanban_cards');
        db.run('CREATE INDEX kanban_cards_column ON kanban_cards (board_id, column_name, position)');
      },
    },
  ],
};
