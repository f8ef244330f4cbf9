import { describe, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonObject } from '@goondan/core';
import { createTestToolContext } from '@goondan/core/testing';
import { kanbanSchema } from '../../src/kanban/kanban-schema.ts';
import { assistantDatabase } from '../../src/store/assistant-database.ts';
import { handlers } from './index.ts';

function freshContext(config: JsonObject = {}) {
  const bundle = mkdtempSync(join(tmpdir(), 'kanban-'));
  return createTestToolContext({ workdir: join(bundle, '.goondan', 'workspaces', 'assistant', 'default'), config });
}

// biome-ignore lint/suspicious/noExplicitAny: handlers answer JSON; tests read it loosely.
type Loose = any;
const call = async (handler: (...args: Loose[]) => unknown, ctx: unknown, input: unknown): Promise<Loose> =>
  await handler(ctx, input);

async function rejection(promise: Promise<unknown>): Promise<Loose> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

/** Titles per column, top to bottom. */
async function layout(ctx: unknown, board: string): Promise<Record<string, string[]>> {
  const listed = await call(handlers.list, ctx, { board_id: board });
  return Object.fromEntries(
    listed.columns.map((column: Loose) => {
      expect(column.cards.map((card: Loose) => card.position)).toEqual(
        column.cards.map((_: unknown, i: number) => i + 1),
      );
      return [column.name, column.cards.map((card: Loose) => card.title)];
    }),
  );
}

async function boardWithCards(ctx: unknown) {
  const board = await call(handlers.create_board, ctx, { name: 'Home', columns: ['Todo', 'Doing', 'Done'] });
  const ids: Record<string, string> = {};
  for (const title of ['a', 'b', 'c'])
    ids[title] = (await call(handlers.add_card, ctx, { board_id: board.id, title })).id;
  ids.d = (await call(handlers.add_card, ctx, { board_id: board.id, title: 'd', column: 'doing' })).id;
  return { board: board.id as string, ids };
}

describe('kanban boards', () => {
  test('a new board gets To Do, In Progress and Done unless columns are given; list_boards counts cards', async () => {
    const ctx = freshContext();
    const plain = await call(handlers.create_board, ctx, { name: 'Errands' });
    expect(plain).toMatchObject({ id: 'board-1', name: 'Errands', cards: 0 });
    expect(plain.columns.map((column: Loose) => column.name)).toEqual(['To Do', 'In Progress', 'Done']);
    await call(handlers.add_card, ctx, { board_id: 'Errands', title: 'Buy milk', priority: 'high', labels: ['shop'] });
    const { boards } = await call(handlers.list_boards, ctx, {});
    expect(boards[0].columns).toEqual([
      { name: 'To Do', cards: 1 },
      { name: 'In Progress', cards: 0 },
      { name: 'Done', cards: 0 },
    ]);
  });

  test('duplicate board names (any case) and duplicate columns are E_KANBAN_NAME_TAKEN; nothing is created', async () => {
    const ctx = freshContext();
    await call(handlers.create_board, ctx, { name: 'Work' });
    expect(await rejection(call(handlers.create_board, ctx, { name: ' work ' }))).toMatchObject({
      code: 'E_KANBAN_NAME_TAKEN',
      suggestion: expect.stringContaining('board-1'),
    });
    expect(await rejection(call(handlers.create_board, ctx, { name: 'Home', columns: ['A', 'a'] }))).toMatchObject({
      code: 'E_KANBAN_NAME_TAKEN',
    });
    expect((await call(handlers.list_boards, ctx, {})).boards.map((board: Loose) => board.name)).toEqual(['Work']);
  });

  test('board names are compared ignoring case in every script, not only ASCII', async () => {
    const ctx = freshContext();
    await call(handlers.create_board, ctx, { name: 'Éclair' });
    await call(handlers.create_board, ctx, { name: 'Дом', columns: ['Сделать', 'Готово'] });
    expect(await rejection(call(handlers.create_board, ctx, { name: 'éCLAIR' }))).toMatchObject({
      code: 'E_KANBAN_NAME_TAKEN',
    });
    expect(await rejection(call(handlers.create_board, ctx, { name: 'дом' }))).toMatchObject({
      code: 'E_KANBAN_NAME_TAKEN',
    });
    const card = await call(handlers.add_card, ctx, { board_id: 'ДОМ', title: 'x', column: 'готово' });
    expect(card).toMatchObject({ boardId: 'board-2', column: 'Готово' });
    expect((await call(handlers.list_boards, ctx, {})).boards.map((board: Loose) => board.name)).toEqual([
      'Éclair',
      'Дом',
    ]);
  });

  test('an unknown board is E_KANBAN_BOARD_NOT_FOUND naming the boards that exist', async () => {
    const ctx = freshContext();
    expect(await rejection(call(handlers.list, ctx, { board_id: 'board-9' }))).toMatchObject({
      code: 'E_KANBAN_BOARD_NOT_FOUND',
      suggestion: expect.stringContaining('no boards yet'),
    });
    await call(handlers.create_board, ctx, { name: 'Work' });
    expect(await rejection(call(handlers.list, ctx, { board_id: 'Wrok' }))).toMatchObject({
      code: 'E_KANBAN_BOARD_NOT_FOUND',
      suggestion: expect.stringContaining('board-1 (Work)'),
    });
  });
});

describe('kanban cards', () => {
  test('add_card puts cards last in the first column, or at a position; list filters by column and priority', async () => {
    const ctx = freshContext();
    const { board } = await boardWithCards(ctx);
    const top = await call(handlers.add_card, ctx, {
      board_id: board,
      title: 'urgent',
      position: 1,
      priority: 'urgent',
    });
    expect(top).toMatchObject({ column: 'Todo', position: 1, priority: 'urgent', labels: [] });
    expect(await layout(ctx, board)).toEqual({ Todo: ['urgent', 'a', 'b', 'c'], Doing: ['d'], Done: [] });
    const urgent = await call(handlers.list, ctx, { board_id: board, priority: 'urgent' });
    expect(urgent.count).toBe(1);
    const doing = await call(handlers.list, ctx, { board_id: board, column: 'DOING' });
    expect(doing.columns).toHaveLength(1);
    expect(doing.columns[0].cards.map((card: Loose) => card.title)).toEqual(['d']);
  });

  test('move_card keeps both columns in order 1..n, within a column and across', async () => {
    const ctx = freshContext();
    const { board, ids } = await boardWithCards(ctx);
    const moved = await call(handlers.move_card, ctx, {
      board_id: board,
      card_id: ids.a,
      column: 'Doing',
      position: 1,
    });
    expect(moved).toMatchObject({ from: { column: 'Todo', position: 1 }, to: { column: 'Doing', position: 1 } });
    expect(await layout(ctx, board)).toEqual({ Todo: ['b', 'c'], Doing: ['a', 'd'], Done: [] });
    await call(handlers.move_card, ctx, { board_id: board, card_id: ids.b, column: 'todo', position: 2 });
    expect(await layout(ctx, board)).toEqual({ Todo: ['c', 'b'], Doing: ['a', 'd'], Done: [] });
    await call(handlers.move_card, ctx, { board_id: board, card_id: ids.d, column: 'Done' });
    await call(handlers.move_card, ctx, { board_id: board, card_id: ids.a, column: 'Done' });
    expect(await layout(ctx, board)).toEqual({ Todo: ['c', 'b'], Doing: [], Done: ['d', 'a'] });
  });

  test('a move to an unknown column or out-of-range position is a coded error and changes nothing', async () => {
    const ctx = freshContext();
    const { board, ids } = await boardWithCards(ctx);
    const before = await layout(ctx, board);
    expect(
      await rejection(call(handlers.move_card, ctx, { board_id: board, card_id: ids.a, column: 'Doing', position: 3 })),
    ).toMatchObject({
      code: 'E_KANBAN_POSITION_INVALID',
      message: expect.stringContaining('1 to 2'),
    });
    expect(
      await rejection(call(handlers.move_card, ctx, { board_id: board, card_id: ids.a, column: 'Todo', position: 4 })),
    ).toMatchObject({
      code: 'E_KANBAN_POSITION_INVALID',
    });
    expect(
      await rejection(call(handlers.move_card, ctx, { board_id: board, card_id: ids.a, column: 'Review' })),
    ).toMatchObject({
      code: 'E_KANBAN_COLUMN_NOT_FOUND',
      suggestion: "Use one of its columns: 'Todo', 'Doing', 'Done'.",
    });
    expect(
      await rejection(call(handlers.move_card, ctx, { board_id: board, card_id: 'card-99', column: 'Done' })),
    ).toMatchObject({
      code: 'E_KANBAN_CARD_NOT_FOUND',
    });
    expect(await layout(ctx, board)).toEqual(before);
  });

  test('a card is found only on its own board', async () => {
    const ctx = freshContext();
    const { ids } = await boardWithCards(ctx);
    const other = await call(handlers.create_board, ctx, { name: 'Other' });
    expect(
      await rejection(call(handlers.update_card, ctx, { board_id: other.id, card_id: ids.a, title: 'x' })),
    ).toMatchObject({
      code: 'E_KANBAN_CARD_NOT_FOUND',
    });
  });

  test('update_card changes the fields given, null clears one, and an empty update is refused', async () => {
    const ctx = freshContext();
    const { board, ids } = await boardWithCards(ctx);
    await call(handlers.update_card, ctx, { board_id: board, card_id: ids.b, assignee: 'minji', priority: 'low' });
    const updated = await call(handlers.update_card, ctx, {
      board_id: board,
      card_id: ids.b,
      title: ' b2 ',
      priority: null,
      labels: ['x', 'x', ' y'],
    });
    expect(updated).toMatchObject({ title: 'b2', assignee: 'minji', labels: ['x', 'y'], column: 'Todo', position: 2 });
    expect(updated.priority).toBeUndefined();
    expect(await rejection(call(handlers.update_card, ctx, { board_id: board, card_id: ids.b }))).toMatchObject({
      code: 'E_TOOL_INVALID_ARGS',
    });
  });

  test('delete_card: preview changes nothing, without confirm it is refused, with confirm the gap closes', async () => {
    const ctx = freshContext();
    const { board, ids } = await boardWithCards(ctx);
    const preview = await call(handlers.delete_card, ctx, { board_id: board, card_id: ids.a, preview: true });
    expect(preview).toMatchObject({
      preview: true,
      count: 1,
      needsConfirm: true,
      changes: [{ card: ids.a, title: 'a' }],
    });
    expect(await rejection(call(handlers.delete_card, ctx, { board_id: board, card_id: ids.a }))).toMatchObject({
      code: 'E_CONFIRM_REQUIRED',
    });
    expect(await layout(ctx, board)).toEqual({ Todo: ['a', 'b', 'c'], Doing: ['d'], Done: [] });
    const deleted = await call(handlers.delete_card, ctx, { board_id: board, card_id: ids.a, confirm: true });
    expect(deleted.deleted).toMatchObject({ id: ids.a, title: 'a' });
    expect(await layout(ctx, board)).toEqual({ Todo: ['b', 'c'], Doing: ['d'], Done: [] });
  });

  test("the Tool's confirmAbove lets a bundle delete single cards without confirm", async () => {
    const ctx = freshContext({ confirmAbove: 1 });
    const { board, ids } = await boardWithCards(ctx);
    expect((await call(handlers.delete_card, ctx, { board_id: board, card_id: ids.c })).deleted.title).toBe('c');
  });
});

describe('kanban names and ids', () => {
  test('a board name of an id shape is refused, so board_id board-1 cannot mean two boards', async () => {
    const ctx = freshContext();
    await call(handlers.create_board, ctx, { name: 'Errands' });
    for (const name of ['board-1', '2', ' Board-7 ', 'BOARD-12', '123456789012345678901234'])
      expect(await rejection(call(handlers.create_board, ctx, { name }))).toMatchObject({
        code: 'E_TOOL_INVALID_ARGS',
        message: expect.stringContaining('shape of a board id'),
      });
    expect((await call(handlers.list_boards, ctx, {})).boards.map((board: Loose) => board.name)).toEqual(['Errands']);
    const card = await call(handlers.add_card, ctx, { board_id: 'board-1', title: 'milk' });
    expect(card.boardId).toBe('board-1');
    // Names that only contain digits or the word board are names.
    for (const name of ['Board 1', 'board-one', '2nd floor']) await call(handlers.create_board, ctx, { name });
    expect((await call(handlers.list, ctx, { board_id: 'board 1' })).board).toMatchObject({ name: 'Board 1' });
  });

  test('an older board whose name is another board id is ambiguous there: refused, nothing written', async () => {
    const ctx = freshContext();
    await call(handlers.create_board, ctx, { name: 'Errands' });
    await call(handlers.create_board, ctx, { name: 'Work' });
    // Made before the rule above: board-3 is named 'board-1', board-4 is named '9' (no board has id 9).
    const db = assistantDatabase(ctx, kanbanSchema);
    for (const name of ['board-1', '9']) {
      const { id } = db
        .query<{ id: number }, [string, number]>(
          "INSERT INTO kanban_boards (workspace, name, created_at) VALUES ('', ?, ?) RETURNING id",
        )
        .get(name, Date.now()) as { id: number };
      db.query("INSERT INTO kanban_columns (board_id, name, position) VALUES (?, 'To Do', 1)").run(id);
    }
    const { id: milk } = await call(handlers.add_card, ctx, { board_id: 'Errands', title: 'milk' });
    for (const attempt of [
      () => call(handlers.add_card, ctx, { board_id: 'board-1', title: 'x' }),
      () => call(handlers.list, ctx, { board_id: 'board-1' }),
      () => call(handlers.delete_card, ctx, { board_id: 'board-1', card_id: milk, confirm: true }),
    ])
      expect(await rejection(attempt())).toMatchObject({
        code: 'E_TOOL_INVALID_ARGS',
        message: "board_id 'board-1' is ambiguous: it is the id of board-1 (Errands) and the name of board-3.",
        suggestion: "Use the board's name 'Errands' for board-1, or board-3 for the board named 'board-1'.",
      });
    expect((await call(handlers.list, ctx, { board_id: 'Errands' })).count).toBe(1);
    expect((await call(handlers.list, ctx, { board_id: 'board-3' })).board).toMatchObject({ name: 'board-1' });
    expect((await call(handlers.list, ctx, { board_id: '9' })).board).toMatchObject({ id: 'board-4' });
  });

  test('control characters in board and column names are refused; names are kept in NFC', async () => {
    const ctx = freshContext();
    for (const name of ['Shop\nping', 'A\u0000B', 'Tab\there', 'Next\u0085line', 'Sep\u2028arator', 'Esc\u001b[31m'])
      expect(await rejection(call(handlers.create_board, ctx, { name }))).toMatchObject({
        code: 'E_TOOL_INVALID_ARGS',
        message: expect.stringContaining('control character'),
      });
    // Invisible characters would make a second board that looks like the first, or show a name reversed.
    for (const name of ['Errands\u200B', 'Err\u2060ands', 'Err\uFEFFands', '\u202Esdnarre', 'a\u2066b\u2069'])
      expect(await rejection(call(handlers.create_board, ctx, { name }))).toMatchObject({
        code: 'E_TOOL_INVALID_ARGS',
        message: expect.stringContaining('invisible or control character'),
      });
    expect((await rejection(call(handlers.create_board, ctx, { name: 'Err\u200Bands' }))).suggestion).toContain(
      '"Errands"',
    );
    const refused = await rejection(call(handlers.create_board, ctx, { name: 'Shop\nping' }));
    expect(refused.message).not.toContain('\n');
    expect(refused.message).toContain('Shop\\u{000A}ping');
    expect(refused.suggestion).toContain('"Shop ping"');
    expect(
      await rejection(call(handlers.create_board, ctx, { name: 'Home', columns: ['To Do', 'Do\ning'] })),
    ).toMatchObject({ code: 'E_TOOL_INVALID_ARGS' });
    expect((await call(handlers.list_boards, ctx, {})).boards).toEqual([]);
    // 'Café' typed with a combining accent is the same name as with the precomposed é.
    const cafe = await call(handlers.create_board, ctx, { name: 'Cafe\u0301', columns: ['Cafe\u0301 list'] });
    expect(cafe.name).toBe('Caf\u00e9');
    expect(await rejection(call(handlers.create_board, ctx, { name: 'Caf\u00e9' }))).toMatchObject({
      code: 'E_KANBAN_NAME_TAKEN',
    });
    const card = await call(handlers.add_card, ctx, { board_id: 'Caf\u00e9', title: 't', column: 'Caf\u00e9 list' });
    expect(card.column).toBe('Caf\u00e9 list');
    // Emoji sequences and scripts that need ZWJ / ZWNJ keep them.
    expect(
      (await call(handlers.create_board, ctx, { name: 'Family \u{1F468}\u200D\u{1F469}\u200D\u{1F467}' })).name,
    ).toBe('Family \u{1F468}\u200D\u{1F469}\u200D\u{1F467}');
    expect((await call(handlers.create_board, ctx, { name: 'می\u200Cخواهم' })).name).toBe('می\u200Cخواهم');
  });

  test('a card title, label or assignee with a control character is refused like a name; descriptions keep lines', async () => {
    const ctx = freshContext();
    await call(handlers.create_board, ctx, { name: 'Home' });
    for (const fields of [
      { title: 'Buy\u001b[2Jmilk' },
      { title: 'A\u0000B' },
      { title: 'milk', labels: ['ok', 'sh\nop'] },
      { title: 'milk', assignee: 'Ada\u2028Lovelace' },
    ])
      expect(await rejection(call(handlers.add_card, ctx, { board_id: 'Home', ...fields }))).toMatchObject({
        code: 'E_TOOL_INVALID_ARGS',
        message: expect.stringContaining('control character'),
      });
    expect((await call(handlers.list, ctx, { board_id: 'Home' })).count).toBe(0);
    const card = await call(handlers.add_card, ctx, { board_id: 'Home', title: 'milk', description: 'one\ntwo' });
    expect(card.description).toBe('one\ntwo');
    expect(
      await rejection(call(handlers.update_card, ctx, { board_id: 'Home', card_id: card.id, title: 'x\ty' })),
    ).toMatchObject({ code: 'E_TOOL_INVALID_ARGS' });
    expect(
      await call(handlers.update_card, ctx, { board_id: 'Home', card_id: card.id, assignee: ' Ada ', labels: [' a '] }),
    ).toMatchObject({ title: 'milk', assignee: 'Ada', labels: ['a'] });
    expect(
      (await call(handlers.update_card, ctx, { board_id: 'Home', card_id: card.id, assignee: null })).assignee,
    ).toBeUndefined();
  });
});
