/**
 * Kanban boards in the assistant database (docs/assistant.md#kanban): boards with ordered columns, cards with
 * 1-based positions. Every change is one transaction; deleting a card goes through the guardrail (preview, and
 * confirm above the Tool's confirmAbove, 0 by default).
 */
import type { Database } from 'bun:sqlite';
import { type ToolContext, withGuardrail } from '@goondan/core';
import { createBoard, listBoards } from '../../src/kanban/kanban-boards.ts';
import { addCard, listCards, updateCard } from '../../src/kanban/kanban-cards.ts';
import { moveCard, planDeleteCard } from '../../src/kanban/kanban-move.ts';
import { kanbanSchema } from '../../src/kanban/kanban-schema.ts';
import type { KanbanCardFields, KanbanPriority } from '../../src/kanban/kanban-types.ts';
import { assistantDatabase } from '../../src/store/assistant-database.ts';
import { callerWorkspace } from '../../src/workspaces/caller-workspace.ts';

const database = (ctx: ToolContext): Database => assistantDatabase(ctx, kanbanSchema);
/** The boards of the caller's current workspace ('' is the personal space; docs/assistant.md#workspaces). */
const workspaceOf = (ctx: ToolContext): string => callerWorkspace(ctx)?.id ?? '';

type CardFields = Omit<KanbanCardFields, 'title'>;

export const handlers = {
  create_board: (ctx: ToolContext, input: { name: string; columns?: string[] }) =>
    createBoard(database(ctx), { ...input, workspace: workspaceOf(ctx) }),
  list_boards: (ctx: ToolContext) => ({ boards: listBoards(database(ctx), workspaceOf(ctx)) }),
  list: (ctx: ToolContext, input: { board_id: string; column?: string; priority?: KanbanPriority }) =>
    listCards(database(ctx), {
      board: input.board_id,
      workspace: workspaceOf(ctx),
      column: input.column,
      priority: input.priority,
    }),
  add_card: (
    ctx: ToolContext,
    input: CardFields & { board_id: string; title: string; column?: string; position?: number },
  ) => {
    const { board_id, ...card } = input;
    return addCard(database(ctx), { ...card, board: board_id, workspace: workspaceOf(ctx) });
  },
  move_card: (ctx: ToolContext, input: { board_id: string; card_id: string; column: string; position?: number }) =>
    moveCard(database(ctx), {
      board: input.board_id,
      workspace: workspaceOf(ctx),
      card: input.card_id,
      column: input.column,
      position: input.position,
    }),
  update_card: (ctx: ToolContext, input: KanbanCardFields & { board_id: string; card_id: string }) => {
    const { board_id, card_id, ...fields } = input;
    return updateCard(database(ctx), { ...fields, board: board_id, workspace: workspaceOf(ctx), card: card_id });
  },
  delete_card: withGuardrail(
    (ctx: ToolContext, input: { board_id: string; card_id: string }) =>
      planDeleteCard(database(ctx), { board: input.board_id, workspace: workspaceOf(ctx), card: input.card_id }),
    { confirmAbove: 0 },
  ),
};
