import type { Database } from 'bun:sqlite';
import { GoondanError } from '@goondan/core/errors';
import { nameKey } from '../names/display-name.ts';
import type { KanbanCard, KanbanCardRow, KanbanPriority } from './kanban-types.ts';

/** A board found by id or name. */
export interface BoardRef {
  id: number;
  name: string;
}

export const boardId = (id: number): string => `board-${id}`;
export const cardId = (id: number): string => `card-${id}`;

/** `board-3`, `3` → 3; anything else → undefined. */
function numericId(ref: string, prefix: string): number | undefined {
  const match = new RegExp(`^(?:${prefix}-)?(\\d+)$`, 'i').exec(ref.trim());
  return match ? Number(match[1]) : undefined;
}

/** True for text a board_id reads as an id (`board-3`, `3`): such text cannot be a board's name. */
export const hasBoardIdShape = (text: string): boolean => numericId(text, 'board') !== undefined;

function boardsOf(db: Database, workspace: string): string[] {
  return db
    .query<BoardRef, [string]>('SELECT id, name FROM kanban_boards WHERE workspace = ? ORDER BY id LIMIT 20')
    .all(workspace)
    .map((board) => `${boardId(board.id)} (${board.name})`);
}

/** The board of a workspace called `name`, ignoring case in any script (NOCASE folds only ASCII), or null. */
export function boardNamed(db: Database, name: string, workspace: string): BoardRef | null {
  const key = nameKey(name);
  return (
    db
      .query<BoardRef, [string, string]>('SELECT id, name FROM kanban_boards WHERE name = ? AND workspace = ?')
      .get(name, workspace) ??
    db
      .query<BoardRef, [string]>('SELECT id, name FROM kanban_boards WHERE workspace = ? ORDER BY id')
      .all(workspace)
      .find((board) => nameKey(board.name) === key) ??
    null
  );
}

/**
 * The board a `board_id` names in a workspace ('' is the personal space): its id (`board-3` or `3`) or, for a
 * model that remembers names, its name. Text of an id's shape is an id: a name cannot have that shape
 * (createBoard refuses it), and where an older board has one anyway and it is also another board's id, the
 * reference is refused as ambiguous rather than guessed. Boards of other workspaces are not found.
 */
export function findBoard(db: Database, ref: string, workspace = ''): BoardRef {
  const text = ref.trim().normalize('NFC');
  const byName = boardNamed(db, text, workspace);
  const id = numericId(text, 'board');
  const byId =
    id === undefined || !Number.isSafeInteger(id)
      ? null
      : db
          .query<BoardRef, [number, string]>('SELECT id, name FROM kanban_boards WHERE id = ? AND workspace = ?')
          .get(id, workspace);
  if (byId && byName && byId.id !== byName.id)
    throw new GoondanError(
      'E_TOOL_INVALID_ARGS',
      `board_id '${ref}' is ambiguous: it is the id of ${boardId(byId.id)} (${byId.name}) and the name of ${boardId(byName.id)}.`,
      {
        suggestion: `Use the board's name '${byId.name}' for ${boardId(byId.id)}, or ${boardId(byName.id)} for the board named '${byName.name}'.`,
      },
    );
  const row = byId ?? byName;
  if (row) return row;
  const boards = boardsOf(db, workspace);
  throw new GoondanError('E_KANBAN_BOARD_NOT_FOUND', `No board '${ref}'.`, {
    suggestion:
      boards.length === 0
        ? 'There are no boards yet; create one with kanban__create_board.'
        : `Boards: ${boards.join(', ')}. Use one of these ids, or create a board with kanban__create_board.`,
  });
}

/** The board's column names, left to right. */
export function boardColumns(db: Database, board: number): string[] {
  return db
    .query<{ name: string }, [number]>('SELECT name FROM kanban_columns WHERE board_id = ? ORDER BY position')
    .all(board)
    .map((row) => row.name);
}

/** The column of `board` that `name` means (case and surrounding spaces ignored), in the board's own spelling. */
export function findColumn(db: Database, board: BoardRef, name: string): string {
  const columns = boardColumns(db, board.id);
  const wanted = nameKey(name.trim());
  const found = columns.find((column) => nameKey(column) === wanted);
  if (found !== undefined) return found;
  throw new GoondanError('E_KANBAN_COLUMN_NOT_FOUND', `Board '${board.name}' has no column '${name}'.`, {
    suggestion: `Use one of its columns: ${columns.map((column) => `'${column}'`).join(', ')}.`,
  });
}

/** The card row `ref` (`card-7` or `7`) names on `board`. */
export function findCard(db: Database, board: BoardRef, ref: string): KanbanCardRow {
  const id = numericId(ref, 'card');
  const row =
    id === undefined || !Number.isSafeInteger(id)
      ? null
      : db
          .query<KanbanCardRow, [number, number]>('SELECT * FROM kanban_cards WHERE id = ? AND board_id = ?')
          .get(id, board.id);
  if (row) return row;
  throw new GoondanError('E_KANBAN_CARD_NOT_FOUND', `Board '${board.name}' has no card '${ref}'.`, {
    suggestion: `Card ids look like card-7; kanban__list with board_id '${boardId(board.id)}' shows the cards it has.`,
  });
}

/** How many cards a column holds. */
export function columnSize(db: Database, board: number, column: string): number {
  return (
    db
      .query<{ count: number }, [number, string]>(
        'SELECT count(*) AS count FROM kanban_cards WHERE board_id = ? AND column_name = ?',
      )
      .get(board, column)?.count ?? 0
  );
}

/** A stored card as the tools return it (optional fields left out when empty). */
export function toCard(row: KanbanCardRow): KanbanCard {
  const card: KanbanCard = {
    id: cardId(row.id),
    boardId: boardId(row.board_id),
    column: row.column_name,
    position: row.position,
    title: row.title,
    labels: JSON.parse(row.labels) as string[],
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
  if (row.description !== null) card.description = row.description;
  if (row.priority !== null) card.priority = row.priority as KanbanPriority;
  if (row.assignee !== null) card.assignee = row.assignee;
  return card;
}
