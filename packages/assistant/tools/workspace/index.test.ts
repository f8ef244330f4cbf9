import { describe, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestToolContext } from '@goondan/core/testing';
import { workspaceDatabase } from '../../src/workspaces/workspace-database.ts';
import { handlers as kanban } from '../kanban/index.ts';
import { handlers as memory } from '../memory/index.ts';
import { handlers as profile } from '../profile/index.ts';
import { handlers as user } from '../user/index.ts';
import { handlers as workspace } from './index.ts';

// biome-ignore lint/suspicious/noExplicitAny: handlers answer JSON; tests read it loosely.
type Loose = any;
const call = async (handler: (...args: Loose[]) => unknown, ctx: unknown, input: unknown = {}): Promise<Loose> =>
  await handler(ctx, input);

async function failure(promise: Promise<unknown>): Promise<Loose> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

/** One bundle served to two people: each talks to their own agent instance (e.g. two Telegram chats). */
async function twoPeople() {
  const bundle = mkdtempSync(join(tmpdir(), 'workspaces-'));
  const workdir = join(bundle, '.goondan', 'workspaces', 'assistant', 'default');
  const minji = createTestToolContext({ workdir, agentName: 'assistant', instanceKey: 'telegram-1001' });
  const jun = createTestToolContext({ workdir, agentName: 'assistant', instanceKey: 'telegram-2002' });
  await call(profile.create, minji, { name: '민지' });
  await call(profile.create, minji, { name: 'Jun' });
  await call(user.set_current, minji, { name: '민지' });
  await call(user.set_current, jun, { name: 'Jun' });
  return { minji, jun, db: () => workspaceDatabase(minji) };
}

const boardNames = async (ctx: unknown) =>
  ((await call(kanban.list_boards, ctx)).boards as Loose[]).map((board) => board.name);

describe('workspaces', () => {
  test('two people share a board and workspace memory through an invite; their personal spaces stay apart', async () => {
    const { minji, jun } = await twoPeople();
    await call(kanban.create_board, minji, { name: 'Private list' });
    const created = await call(workspace.create, minji, { name: '우리 집' });
    expect(created.workspace.name).toBe('우리 집');
    expect(created.invite.code).toMatch(/^[2-9A-Z]{5}-[2-9A-Z]{5}$/);
    expect(created.current).toBe(true);
    // Minji is now in the workspace: a new board there, and a shared memory.
    const board = await call(kanban.create_board, minji, { name: 'Groceries' });
    await call(kanban.add_card, minji, { board_id: 'Groceries', title: '우유 사기' });
    await call(memory.save, minji, { content: '분리수거는 화요일', scope: 'workspace' });
    await call(memory.save, minji, { content: '민지는 오이를 싫어함', scope: 'personal' });
    expect(await boardNames(minji)).toEqual(['Groceries']);

    expect(await boardNames(jun)).toEqual(['Private list']); // the personal space, before joining
    const joined = await call(workspace.join_by_invite, jun, {
      invite_code: created.invite.code.toLowerCase().replace('-', ' '),
    });
    expect(joined).toMatchObject({ workspace: { id: created.workspace.id, name: '우리 집' }, alreadyMember: false });
    expect(await boardNames(jun)).toEqual(['Groceries']);
    const cards = await call(kanban.list, jun, { board_id: board.id });
    expect(cards.columns[0].cards.map((card: Loose) => card.title)).toEqual(['우유 사기']);
    await call(kanban.add_card, jun, { board_id: 'Groceries', title: 'Eggs' });
    expect((await call(kanban.list, minji, { board_id: 'Groceries' })).count).toBe(2);
    const recalled = await call(memory.search, jun, { query: '분리수거' });
    expect(recalled.memories.map((entry: Loose) => entry.content)).toEqual(['분리수거는 화요일']);
    expect((await call(memory.search, jun, { query: '오이' })).memories).toEqual([]);

    const listed = await call(workspace.list, jun);
    expect(listed.workspaces).toEqual([
      { id: 'personal', name: 'Personal', current: false, personal: true },
      expect.objectContaining({
        id: created.workspace.id,
        role: 'member',
        current: true,
        members: [
          { name: '민지', role: 'owner' },
          { name: 'Jun', role: 'member' },
        ],
      }),
    ]);
    // Switching back: the personal space again, where the workspace's board is not found.
    await call(workspace.switch, jun, { id: 'personal' });
    expect(await boardNames(jun)).toEqual(['Private list']);
    expect(await failure(call(kanban.list, jun, { board_id: board.id }))).toMatchObject({
      code: 'E_KANBAN_BOARD_NOT_FOUND',
    });
    expect((await call(memory.search, jun, { query: '분리수거' })).memories).toEqual([]);
    await call(workspace.switch, jun, { id: '우리 집' });
    expect(await boardNames(jun)).toEqual(['Groceries']);
  });

  test('an expired code, a reused single-use code and a replaced code are refused with their own codes', async () => {
    const { minji, jun, db } = await twoPeople();
    const created = await call(workspace.create, minji, { name: 'Book club', single_use: true });
    const third = createTestToolContext({ workdir: minji.workdir, agentName: 'assistant', instanceKey: 'web-3' });
    await call(profile.create, third, { name: 'Sora' });
    await call(user.set_current, third, { name: 'Sora' });

    await call(workspace.join_by_invite, jun, { invite_code: created.invite.code });
    // Someone already in does not spend it again, and is told so.
    expect(await call(workspace.join_by_invite, jun, { invite_code: created.invite.code })).toMatchObject({
      alreadyMember: true,
    });
    expect(await failure(call(workspace.join_by_invite, third, { invite_code: created.invite.code }))).toMatchObject({
      code: 'E_WORKSPACE_INVITE_USED',
    });

    const renewed = await call(workspace.regenerate_invite_code, jun, { id: 'Book club', expires_in_hours: 1 });
    expect(renewed.invite.code).not.toBe(created.invite.code);
    expect(await failure(call(workspace.join_by_invite, third, { invite_code: created.invite.code }))).toMatchObject({
      code: 'E_WORKSPACE_INVITE_INVALID',
    });
    db()
      .query('UPDATE workspace_invites SET expires_at = ? WHERE workspace_id = ?')
      .run(Date.now() - 1, created.workspace.id);
    expect(await failure(call(workspace.join_by_invite, third, { invite_code: renewed.invite.code }))).toMatchObject({
      code: 'E_WORKSPACE_INVITE_EXPIRED',
    });
    expect((await call(workspace.list, third)).workspaces).toHaveLength(1);
    // Only the hash of a code is stored.
    const stored = JSON.stringify(db().query('SELECT * FROM workspace_invites').all());
    expect(stored).not.toContain(renewed.invite.code.replace('-', ''));
  });

  test('who may do what: no current user, other people’s workspaces, taken names, bad hours', async () => {
    const { minji, jun } = await twoPeople();
    const nobody = createTestToolContext({ workdir: minji.workdir, agentName: 'assistant', instanceKey: 'new' });
    expect(await failure(call(workspace.create, nobody, { name: 'X' }))).toMatchObject({ code: 'E_USER_NOT_SET' });
    expect((await call(workspace.list, nobody)).workspaces).toEqual([
      { id: 'personal', name: 'Personal', current: true, personal: true },
    ]);
    const created = await call(workspace.create, minji, { name: 'Family' });
    expect(await failure(call(workspace.create, minji, { name: 'family' }))).toMatchObject({
      code: 'E_WORKSPACE_NAME_TAKEN',
    });
    const notMine = await failure(call(workspace.switch, jun, { id: created.workspace.id }));
    expect(notMine).toMatchObject({ code: 'E_WORKSPACE_NOT_FOUND' });
    expect(notMine.message).not.toContain('Family');
    expect(await failure(call(workspace.regenerate_invite_code, jun, { id: created.workspace.id }))).toMatchObject({
      code: 'E_WORKSPACE_NOT_FOUND',
    });
    expect(await failure(call(workspace.create, jun, { name: 'Y', expires_in_hours: 0 }))).toMatchObject({
      code: 'E_TOOL_INVALID_ARGS',
    });
    // A workspace name is one line, like every name (lists of workspaces and their errors never break).
    for (const name of ['Fam\nily', 'Tab\there', 'Esc\u001b[2J'])
      expect(await failure(call(workspace.create, jun, { name }))).toMatchObject({
        code: 'E_TOOL_INVALID_ARGS',
        message: expect.stringContaining('control character'),
      });
    expect((await call(workspace.list, jun)).workspaces).toHaveLength(1);
    // A speaker whose person changes to a non-member is back in the personal space.
    await call(user.set_current, minji, { name: 'Jun' });
    expect((await call(workspace.list, minji)).workspaces[0]).toMatchObject({ id: 'personal', current: true });
  });
});

describe('workspaces and profile__merge', () => {
  test('merging two profiles of one person keeps the workspaces either belonged to', async () => {
    const { minji, jun } = await twoPeople();
    const created = await call(workspace.create, jun, { name: 'Band' });
    await call(profile.merge, minji, { source: 'Jun', target: '민지', merge_memory: 'append', preview: true }).then(
      (preview) => expect(JSON.stringify(preview)).toContain('Band'),
    );
    const merged = await call(profile.merge, minji, {
      source: 'Jun',
      target: '민지',
      merge_memory: 'append',
      confirm: true,
    });
    expect(JSON.stringify(merged)).toContain('Band');
    const listed = await call(workspace.list, minji);
    expect(listed.workspaces[1]).toMatchObject({
      id: created.workspace.id,
      role: 'owner',
      members: [{ name: '민지', role: 'owner' }],
    });
  });
});
