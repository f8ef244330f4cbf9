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
  ],
};
