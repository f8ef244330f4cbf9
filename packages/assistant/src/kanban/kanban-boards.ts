import type { Database } from 'bun:sqlite';
import { GoondanError } from '@goondan/core/errors';
import { displayName } from '../names/display-name.ts';
import { boardColumns, boardId, boardNamed, hasBoardIdShape } from './kanban-lookup.ts';
import { defaultKanbanColumns, type KanbanBoard } from './kanban-types.ts';

function describeBoard(db: Database, board: { id: number; name: string; created_at: number }): KanbanBoard {
  const counts = new Map(
    db
      .query<{ column_name: string; count: number }, [number]>(
        'SELECT column_name, count(*) AS count FROM kanban_cards WHERE board_id = ? GROUP BY column_name',
      )
      .all(board.id)
      .map((row) => [row.column_name.toLowerCase(), row.count]),
  );
  const columns = boardColumns(db, board.id).map((name) => ({ name, cards: counts.get(name.toLowerCase()) ?? 0 }));
  return {
    id: boardId(board.id),
    name: board.name,
    columns,
    cards: columns.reduce((sum, column) => sum + column.cards, 0),
    createdAt: new Date(board.created_at).toISOString(),
  };
}

/** Column names as given, trimmed, in NFC; two that differ only in case are one name twice. */
function checkedColumns(columns: readonly string[]): string[] {
  const names = columns.map((column) => displayName(column, 'a column name'));
  const seen = new Set<string>();
  for (const name of names) {
    if (name === '')
      throw new GoondanError('E_TOOL_INVALID_ARGS', 'A column name is empty.', {
        suggestion: "Give every column a name, e.g. columns: ['To Do', 'Doing', 'Done'].",
      });
    if (seen.has(name.toLowerCase()))
      throw new GoondanError('E_KANBAN_NAME_TAKEN', `The column '${name}' is listed twice.`, {
        suggestion: 'Give each column a different name (case is ignored when comparing).',
      });
    seen.add(name.toLowerCase());
  }
  return names;
}

/** Creates a board with its columns (default To Do, In Progress, Done) in one transaction. */
export function createBoard(
  db: Database,
  input: { name: string; columns?: readonly string[]; workspace?: string },
): KanbanBoard {
  const workspace = input.workspace ?? '';
  const name = displayName(input.name, 'the board name');
  if (name === '')
    throw new GoondanError('E_TOOL_INVALID_ARGS', 'The board name is empty.', { suggestion: 'Give the board a name.' });
  // A board_id of this shape means an id, so a board named so could not be reached by its name (or would be
  // confused with the board that has that id).
  if (hasBoardIdShape(name))
    throw new GoondanError('E_TOOL_INVALID_ARGS', `'${name}' has the shape of a board id, so it cannot be a name.`, {
      suggestion: `Name the board in words (e.g. 'Errands', or 'Board ${name.replace(/\D/g, '')}'); boards are referred to by their id (board-N, answered by kanban__create_board) or by their name.`,
    });
  const columns = checkedColumns(
    input.columns === undefined || input.columns.length === 0 ? defaultKanbanColumns : input.columns,
  );
  return db
    .transaction(() => {
      const existing = boardNamed(db, name, workspace);
      if (existing)
        throw new GoondanError(
          'E_KANBAN_NAME_TAKEN',
          `A board named '${name}' already exists (${boardId(existing.id)}).`,
          {
            suggestion: `Use ${boardId(existing.id)}, or create the new board under another name.`,
          },
        );
      const board = db
        .query<{ id: number; name: string; created_at: number }, [string, string, number]>(
          'INSERT INTO kanban_boards (workspace, name, created_at) VALUES (?, ?, ?) RETURNING id, name, created_at',
        )
        .get(workspace, name, Date.now()) as { id: number; name: string; created_at: number };
      const insert = db.query('INSERT INTO kanban_columns (board_id, name, position) VALUES (?, ?, ?)');
      for (const [index, column] of columns.entries()) insert.run(board.id, column, index + 1);
      return describeBoard(db, board);
    })
    .immediate();
}

/** Every board of a workspace ('' is the personal space), oldest first, with its columns and card counts. */
export function listBoards(db: Database, workspace = ''): KanbanBoard[] {
  return db
    .query<{ id: number; name: string; created_at: number }, [string]>(
      'SELECT id, name, created_at FROM kanban_boards WHERE workspace = ? ORDER BY id',
    )
    .all(workspace)
    .map((board) => describeBoard(db, board));
}
