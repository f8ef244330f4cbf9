import type { Database } from 'bun:sqlite';
import { GoondanError } from '@goondan/core/errors';
import { displayName } from '../names/display-name.ts';
import { boardColumns, boardId, columnSize, findBoard, findCard, findColumn, toCard } from './kanban-lookup.ts';
import type { KanbanCard, KanbanCardFields, KanbanCardRow, KanbanPriority } from './kanban-types.ts';

function positionError(position: number, last: number, column: string): GoondanError {
  return new GoondanError(
    'E_KANBAN_POSITION_INVALID',
    `Position ${position} is outside column '${column}', which takes positions 1 to ${last}.`,
    { suggestion: `Give a position from 1 (top) to ${last} (bottom), or leave it out to put the card last.` },
  );
}

/** The position a card goes to: `wanted`, checked against 1..last, or last. */
export function placeAt(wanted: number | undefined, last: number, column: string): number {
  if (wanted === undefined) return last;
  if (!Number.isInteger(wanted) || wanted < 1 || wanted > last) throw positionError(wanted, last, column);
  return wanted;
}

function cleanTitle(title: string): string {
  const trimmed = displayName(title, 'the card title');
  if (trimmed === '')
    throw new GoondanError('E_TOOL_INVALID_ARGS', 'The card title is empty.', { suggestion: 'Give the card a title.' });
  return trimmed;
}

function cleanLabels(labels: readonly string[]): string {
  return JSON.stringify([
    ...new Set(labels.map((label) => displayName(label, 'a label')).filter((label) => label !== '')),
  ]);
}

/** An assignee is a person's name, one line like every name; none (or null, which clears it) is null. */
function cleanAssignee(assignee: string | null | undefined): string | null {
  return typeof assignee === 'string' ? displayName(assignee, 'the assignee') : null;
}

/** Adds a card to a column (default: the board's first) at a position (default: last). */
export function addCard(
  db: Database,
  input: KanbanCardFields & { board: string; workspace?: string; title: string; column?: string; position?: number },
): KanbanCard {
  const title = cleanTitle(input.title);
  return db
    .transaction(() => {
      const board = findBoard(db, input.board, input.workspace);
      const column =
        input.column === undefined
          ? (db
              .query<{ name: string }, [number]>(
                'SELECT name FROM kanban_columns WHERE board_id = ? ORDER BY position LIMIT 1',
              )
              .get(board.id)?.name as string)
          : findColumn(db, board, input.column);
      const position = placeAt(input.position, columnSize(db, board.id, column) + 1, column);
      db.query(
        'UPDATE kanban_cards SET position = position + 1 WHERE board_id = ? AND column_name = ? AND position >= ?',
      ).run(board.id, column, position);
      const now = Date.now();
      const row = db
        .query<
          KanbanCardRow,
          [number, string, number, string, string | null, KanbanPriority | null, string, string | null, number, number]
        >(
          `INSERT INTO kanban_cards (board_id, column_name, position, title, description, priority, labels, assignee, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
        )
        .get(
          board.id,
          column,
          position,
          title,
          input.description ?? null,
          input.priority ?? null,
          cleanLabels(input.labels ?? []),
          cleanAssignee(input.assignee),
          now,
          now,
        ) as KanbanCardRow;
      return toCard(row);
    })
    .immediate();
}

/** Changes the fields given (null clears an optional one); the card keeps its column and position. */
export function updateCard(
  db: Database,
  input: KanbanCardFields & { board: string; workspace?: string; card: string },
): KanbanCard {
  const changes: [string, string | null][] = [];
  if (input.title !== undefined) changes.push(['title', cleanTitle(input.title)]);
  if (input.description !== undefined) changes.push(['description', input.description]);
  if (input.priority !== undefined) changes.push(['priority', input.priority]);
  if (input.labels !== undefined) changes.push(['labels', cleanLabels(input.labels)]);
  if (input.assignee !== undefined) changes.push(['assignee', cleanAssignee(input.assignee)]);
  if (changes.length === 0)
    throw new GoondanError('E_TOOL_INVALID_ARGS', 'Nothing to update: no field was given.', {
      suggestion: 'Give at least one of title, description, priority, labels or assignee (null clears one).',
    });
  return db
    .transaction(() => {
      const board = findBoard(db, input.board, input.workspace);
      const card = findCard(db, board, input.card);
      const sets = changes.map(([column]) => `${column} = ?`).join(', ');
      const row = db
        .query<KanbanCardRow, (string | number | null)[]>(
          `UPDATE kanban_cards SET ${sets}, updated_at = ? WHERE id = ? RETURNING *`,
        )
        .get(...changes.map(([, value]) => value), Date.now(), card.id) as KanbanCardRow;
      return toCard(row);
    })
    .immediate();
}

/** The cards of a board, by column left to right then position, optionally of one column or priority. */
export function listCards(
  db: Database,
  input: { board: string; workspace?: string; column?: string; priority?: KanbanPriority },
): { board: { id: string; name: string }; columns: { name: string; cards: KanbanCard[] }[]; count: number } {
  const board = findBoard(db, input.board, input.workspace);
  const only = input.column === undefined ? undefined : findColumn(db, board, input.column);
  const rows = db
    .query<KanbanCardRow, [number]>('SELECT * FROM kanban_cards WHERE board_id = ? ORDER BY position')
    .all(board.id)
    .filter((row) => input.priority === undefined || row.priority === input.priority);
  const names = boardColumns(db, board.id).filter((name) => only === undefined || name === only);
  const columns = names.map((name) => ({
    name,
    cards: rows.filter((row) => row.column_name === name).map(toCard),
  }));
  return {
    board: { id: boardId(board.id), name: board.name },
    columns,
    count: columns.reduce((sum, column) => sum + column.cards.length, 0),
  };
}
