import { Database } from 'bun:sqlite';
import { describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBoard, listBoards } from '../kanban/kanban-boards.ts';
import { addCard, listCards } from '../kanban/kanban-cards.ts';
import { kanbanSchema } from '../kanban/kanban-schema.ts';
import { memorySchema } from '../memory/memory-schema.ts';
import { saveMemory, searchMemory } from '../memory/memory-store.ts';
import { assistantDatabaseAt } from '../store/assistant-database.ts';

/** A store as the assistant wrote it before workspaces: kanban and memory at schema version 1. */
function storeBeforeWorkspaces(): string {
  const dir = mkdtempSync(join(tmpdir(), 'assistant-v1-'));
  mkdirSync(join(dir, '.goondan'));
  const path = join(dir, '.goondan', 'assistant.db');
  const db = new Database(path);
  db.run('PRAGMA foreign_keys = ON');
  db.run('CREATE TABLE assistant_schema (concern TEXT PRIMARY KEY, version INTEGER NOT NULL)');
  kanbanSchema.migrations[0]?.up(db);
  memorySchema.migrations[0]?.up(db);
  db.run("INSERT INTO assistant_schema VALUES ('kanban', 1), ('memory', 1)");
  db.run("INSERT INTO kanban_boards (name, created_at) VALUES ('Errands', 1), ('Gone', 2)");
  db.run("INSERT INTO kanban_columns VALUES (1, 'To Do', 1), (1, 'Done', 2), (2, 'To Do', 1)");
  db.run(
    "INSERT INTO kanban_cards (board_id, column_name, position, title, labels, created_at, updated_at) VALUES (1, 'To Do', 1, 'Milk', '[]', 1, 1), (1, 'To Do', 2, 'Bread', '[]', 1, 1)",
  );
  db.run('DELETE FROM kanban_cards WHERE id = 2');
  db.run('DELETE FROM kanban_boards WHERE id = 2');
  db.close();
  return path;
}

describe('migrating a store from before workspaces', () => {
  test('boards, cards and memories stay, in the personal space; ids keep counting; names are unique per workspace', () => {
    const path = storeBeforeWorkspaces();
    const kanban = assistantDatabaseAt(path, kanbanSchema);
    expect(listBoards(kanban).map((board) => [board.id, board.name, board.cards])).toEqual([['board-1', 'Errands', 1]]);
    expect(listCards(kanban, { board: 'Errands' }).columns[0]?.cards.map((card) => card.title)).toEqual(['Milk']);
    // A deleted card's and board's ids are not given out again.
    expect(addCard(kanban, { board: 'Errands', title: 'Eggs' }).id).toBe('card-3');
    expect(createBoard(kanban, { name: 'Errands', workspace: 'w-1' }).id).toBe('board-3');
    expect(listBoards(kanban, 'w-1').map((board) => board.name)).toEqual(['Errands']);
    expect(kanban.query('PRAGMA foreign_key_check').all()).toEqual([]);
    // Deleting a board still cascades to its columns and cards after the rebuild.
    kanban.run('DELETE FROM kanban_boards WHERE id = 1');
    expect(kanban.query('SELECT count(*) AS n FROM kanban_cards').get()).toEqual({ n: 0 });

    const memory = assistantDatabaseAt(path, memorySchema);
    saveMemory(memory, { scope: 'workspace', owner: null }, 'saved in the personal space');
    saveMemory(memory, { scope: 'workspace', owner: null, workspace: 'w-1' }, 'saved in a workspace');
    expect(searchMemory(memory, 'saved', { personalOwner: null }).map((entry) => entry.content)).toEqual([
      'saved in the personal space',
    ]);
    expect(
      searchMemory(memory, 'saved', { personalOwner: null, workspace: 'w-1' }).map((entry) => entry.content),
    ).toEqual(['saved in a workspace']);
  });
});
