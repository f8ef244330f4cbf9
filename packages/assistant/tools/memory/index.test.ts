import { beforeEach, describe, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolContext } from '@goondan/core';
import { createTestToolContext } from '@goondan/core/testing';
import { MEMORY_MAX_CHARS } from '../../src/memory/memory-store.ts';
import { handlers as profile } from '../profile/index.ts';
import { handlers as user } from '../user/index.ts';
import { handlers as memory } from './index.ts';

let ctx: ToolContext;
beforeEach(() => {
  const bundle = mkdtempSync(join(tmpdir(), 'assistant-memory-'));
  ctx = createTestToolContext({ workdir: join(bundle, '.goondan', 'workspaces', 'helper', 'default') });
});

const contents = (result: { memories: { content: string }[] }) => result.memories.map((entry) => entry.content);

describe('memory tools', () => {
  test('"회의" finds "내일 회의 준비"; a Korean word with a particle and an English word prefix are found', () => {
    memory.save(ctx, { content: '내일 회의 준비', scope: 'workspace' });
    memory.save(ctx, { content: '금요일 회의를 취소했다', scope: 'workspace' });
    memory.save(ctx, { content: 'The dentist appointment moved to Monday', scope: 'workspace' });
    memory.save(ctx, { content: '점심은 김치찌개', scope: 'workspace' });
    expect(contents(memory.search(ctx, { query: '회의' }))).toEqual(['내일 회의 준비', '금요일 회의를 취소했다']);
    expect(contents(memory.search(ctx, { query: '회의 준비' }))).toEqual(['내일 회의 준비']);
    expect(contents(memory.search(ctx, { query: 'appoint' }))).toEqual(['The dentist appointment moved to Monday']);
    expect(contents(memory.search(ctx, { query: 'DENTIST monday' }))).toHaveLength(1);
    expect(contents(memory.search(ctx, { query: 'birthday' }))).toEqual([]);
  });

  test('personal memory belongs to the current user; others and the workspace scope do not see it', async () => {
    expect(() => memory.save(ctx, { content: 'likes tea', scope: 'personal' })).toThrow(
      expect.objectContaining({ code: 'E_USER_NOT_SET' }),
    );
    profile.create(ctx, { name: 'Minji' });
    profile.create(ctx, { name: 'Jisoo', aliases: ['지수'] });
    user.set_current(ctx, { name: 'Minji' });
    memory.save(ctx, { content: '민지는 녹차를 좋아한다', scope: 'personal' });
    memory.save(ctx, { content: '우리 집 와이파이 비밀번호는 냉장고에', scope: 'workspace' });
    expect(contents(memory.search(ctx, { query: '녹차' }))).toEqual(['민지는 녹차를 좋아한다']);
    user.set_current(ctx, { name: '지수' });
    expect(contents(memory.search(ctx, { query: '녹차' }))).toEqual([]);
    expect(contents(memory.search(ctx, { query: '와이파이' }))).toHaveLength(1);
    expect(contents(memory.search(ctx, { query: '와이파이', scope: 'personal' }))).toEqual([]);
  });

  test('update replaces the one memory that matches, and keeps the index in step', () => {
    memory.save(ctx, { content: 'Standup is at 9:30', scope: 'workspace' });
    memory.save(ctx, { content: 'Retro is on Friday', scope: 'workspace' });
    const result = memory.update(ctx, { old_content: 'standup', new_content: '스탠드업은 10시', scope: 'workspace' });
    expect(result).toMatchObject({ before: 'Standup is at 9:30', updated: '스탠드업은 10시' });
    expect(contents(memory.search(ctx, { query: 'standup' }))).toEqual([]);
    expect(contents(memory.search(ctx, { query: '스탠드업' }))).toEqual(['스탠드업은 10시']);
  });

  test('bad input is a coded error with a suggestion, and changes nothing', () => {
    memory.save(ctx, { content: 'Retro is on Friday', scope: 'workspace' });
    memory.save(ctx, { content: 'Retro notes go in the wiki', scope: 'workspace' });
    const cases: [() => unknown, string][] = [
      [() => memory.save(ctx, { content: '   ', scope: 'workspace' }), 'E_TOOL_INVALID_ARGS'],
      [
        () => memory.save(ctx, { content: 'x'.repeat(MEMORY_MAX_CHARS + 1), scope: 'workspace' }),
        'E_TOOL_INVALID_ARGS',
      ],
      [() => memory.save(ctx, { content: 'hi', scope: 'team' as never }), 'E_TOOL_INVALID_ARGS'],
      [() => memory.update(ctx, { old_content: 'lunch', new_content: 'x', scope: 'workspace' }), 'E_MEMORY_NOT_FOUND'],
      [() => memory.update(ctx, { old_content: 'retro', new_content: 'x', scope: 'workspace' }), 'E_MEMORY_AMBIGUOUS'],
    ];
    for (const [call, code] of cases) {
      let thrown: unknown;
      try {
        call();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toMatchObject({ code });
      expect((thrown as { suggestion?: string }).suggestion).toBeTruthy();
    }
    expect(contents(memory.search(ctx, { query: 'retro' }))).toEqual([
      'Retro is on Friday',
      'Retro notes go in the wiki',
    ]);
  });
});
