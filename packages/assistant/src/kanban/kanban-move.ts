import type { Database } from 'bun:sqlite';
import type { GuardrailPlan } from '@goondan/core';
import { placeAt } from './kanban-cards.ts';
import { cardId, columnSize, findBoard, findCard, findColumn, toCard } from './kanban-lookup.ts';
import type { KanbanCard, KanbanCardRow } from './kanban-types.ts';

/** Closes the gap a card leaves at `position` of its column. */
function closeGap(db: Database, card: KanbanCardRow): void {
  db.query(
    'UPDATE kanban_cards SET position = position - 1 WHERE board_id = ? AND column_name = ? AND position > ?',
  ).run(card.board_id, card.column_name, card.position);
}

/**
 * Moves a card to a column (possibly its own) at a position (default: last). Positions in both columns stay
 * 1..n; the whole move is one transaction, so an out-of-range position or unknown column changes nothing.
 */
export function moveCard(
  db: Database,
  input: { board: string; workspace?: string; card: string; column: string; position?: number },
): { card: KanbanCard; from: { column: string; position: number }; to: { column: string; position: number } } {
  return db
    .transaction(() => {
      const board = findBoard(db, input.board, input.workspace);
      const card = findCard(db, board, input.card);
      const column = findColumn(db, board, input.column);
      const same = column.toLowerCase() === card.column_name.toLowerCase();
      const last = columnSize(db, board.id, column) + (same ? 0 : 1);
      const position = placeAt(input.position, last, column);
      closeGap(db, card);
      db.query(
        'UPDATE kanban_cards SET position = position + 1 WHERE board_id = ? AND column_name = ? AND position >= ? AND id != ?',
      ).run(board.id, column, position, card.id);
      const moved = db
        .query<KanbanCardRow, [string, number, number, number]>(
          'UPDATE kanban_cards SET column_name = ?, position = ?, updated_at = ? WHERE id = ? RETURNING *',
        )
        .get(column, position, Date.now(), card.id) as KanbanCardRow;
      return {
        card: toCard(moved),
        from: { column: card.column_name, position: card.position },
        to: { column, position },
      };
    })
    .immediate();
}

/** What deleting a card would do, for withGuardrail: one change, applied in one transaction. */
export function planDeleteCard(
  db: Database,
  input: { board: string; workspace?: string; card: string },
): GuardrailPlan {
  const board = findBoard(db, input.board, input.workspace);
  const card = findCard(db, board, input.card);
  return {
    changes: [{ card: cardId(card.id), title: card.title, column: card.column_name }],
    summary: `delete card ${cardId(card.id)} '${card.title}' from '${card.column_name}' of board '${board.name}'`,
    apply: () =>
      db
        .transaction(() => {
          // Looked up again: the card may have moved since the plan (another agent process).
          const current = findCard(db, board, input.card);
          db.query('DELETE FROM kanban_cards WHERE id = ?').run(current.id);
          closeGap(db, current);
          return { deleted: toCard(current) };
        })
        .immediate(),
  };
}
