/** How urgent a card is; cards without one have none. */
export const kanbanPriorities = ['low', 'medium', 'high', 'urgent'] as const;
export type KanbanPriority = (typeof kanbanPriorities)[number];

/** Columns a board gets when created without any. */
export const defaultKanbanColumns = ['To Do', 'In Progress', 'Done'] as const;

/** A board as the tools return it. */
export type KanbanBoard = {
  id: string;
  name: string;
  columns: { name: string; cards: number }[];
  cards: number;
  createdAt: string;
};

/** A card as the tools return it: position is 1-based within its column (1 is the top). */
export type KanbanCard = {
  id: string;
  boardId: string;
  column: string;
  position: number;
  title: string;
  description?: string;
  priority?: KanbanPriority;
  labels: string[];
  assignee?: string;
  createdAt: string;
  updatedAt: string;
};

/** A card row as stored. */
export interface KanbanCardRow {
  id: number;
  board_id: number;
  column_name: string;
  position: number;
  title: string;
  description: string | null;
  priority: KanbanPriority | null;
  labels: string;
  assignee: string | null;
  created_at: number;
  updated_at: number;
}

/** The fields of a card that add_card and update_card set; `null` clears an optional one. */
export interface KanbanCardFields {
  title?: string;
  description?: string | null;
  priority?: KanbanPriority | null;
  labels?: string[];
  assignee?: string | null;
}
