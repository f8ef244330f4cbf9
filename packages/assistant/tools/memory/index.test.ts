import { Database } from 'bun:sqlite';
import { beforeEach, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolContext } from '@goondan/core';
import { createTestToolContext } from '@goondan/core/testing';
import { memorySchema } from '../../src/memory/memory-schema.ts';
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

  test('update finds old_content ignoring case in every script and Unicode normalisation', () => {
    memory.save(ctx, { content: 'Иван любит чай', scope: 'workspace' });
    memory.save(ctx, { content: 'ÉCOLE starts at 8', scope: 'workspace' });
    memory.save(ctx, { content: 'Ёлка', scope: 'workspace' });
    memory.save(ctx, { content: 'Ёлка стоит в гостиной', scope: 'workspace' });
    const cyrillic = memory.update(ctx, {
      old_content: 'ИВАН ЛЮБИТ',
      new_content: 'Иван любит кофе',
      scope: 'workspace',
    });
    expect(cyrillic).toMatchObject({ before: 'Иван любит чай', updated: 'Иван любит кофе' });
    // 'école' with the accent as its own character (e + U+0301), in another case.
    const accented = memory.update(ctx, {
      old_content: 'e\u0301cole',
      new_content: 'École starts at 9',
      scope: 'workspace',
    });
    expect(accented).toMatchObject({ before: 'ÉCOLE starts at 8', updated: 'École starts at 9' });
    // An entry equal to it wins over one containing it, in any case; the new text is found the same way.
    expect(memory.update(ctx, { old_content: 'ёлка', new_content: 'Ёлка куплена', scope: 'workspace' })).toMatchObject({
      before: 'Ёлка',
    });
    expect(memory.update(ctx, { old_content: 'ЁЛКА КУПЛЕНА', new_content: 'x', scope: 'workspace' })).toMatchObject({
      before: 'Ёлка куплена',
    });
    memory.save(ctx, { content: 'ёлка на балконе', scope: 'workspace' });
    expect(() => memory.update(ctx, { old_content: 'ЁЛКА', new_content: 'y', scope: 'workspace' })).toThrow(
      expect.objectContaining({ code: 'E_MEMORY_AMBIGUOUS' }),
    );
    expect(contents(memory.search(ctx, { query: 'кофе' }))).toEqual(['Иван любит кофе']);
  });

  test('a store written before content_key is brought up to date: its old memories are found ignoring case', () => {
    const bundle = mkdtempSync(join(tmpdir(), 'assistant-memory-v2-'));
    mkdirSync(join(bundle, '.goondan'));
    const db = new Database(join(bundle, '.goondan', 'assistant.db'));
    db.run('CREATE TABLE assistant_schema (concern TEXT PRIMARY KEY, version INTEGER NOT NULL)');
    for (const step of memorySchema.migrations.filter((step) => step.version <= 2)) step.up(db);
    db.run("INSERT INTO assistant_schema VALUES ('memory', 2)");
    const insert = db.query(
      "INSERT INTO memory_entries (scope, content, created_at, updated_at) VALUES ('workspace', ?, 'then', 'then')",
    );
    db.transaction(() => {
      for (let n = 0; n < 1200; n += 1) insert.run(`Заметка номер ${n}`);
    })();
    db.close();
    const old = createTestToolContext({ workdir: join(bundle, '.goondan', 'workspaces', 'helper', 'default') });
    expect(
      memory.update(old, { old_content: 'ЗАМЕТКА НОМЕР 1199', new_content: 'последняя', scope: 'workspace' }),
    ).toMatchObject({ before: 'Заметка номер 1199', updated: 'последняя' });
    expect(() => memory.update(old, { old_content: 'НОМЕР 119', new_content: 'z', scope: 'workspace' })).toThrow(
      expect.objectContaining({ code: 'E_MEMORY_AMBIGUOUS' }),
    );
  });

  test('an empty query or old_content is told what that field wants, not to give a fact to remember', () => {
    const suggestion = (call: () => unknown) => {
      try {
        call();
      } catch (error) {
        return (error as { code: string; suggestion: string }).suggestion;
      }
      throw new Error('expected the call to fail');
    };
    expect(suggestion(() => memory.search(ctx, { query: '   ' }))).toBe(
      "Give 'query' a few words the memory contains.",
    );
    expect(suggestion(() => memory.update(ctx, { old_content: ' ', new_content: 'x', scope: 'workspace' }))).toContain(
      'memory__search finds it',
    );
    expect(suggestion(() => memory.save(ctx, { content: ' ', scope: 'workspace' }))).toContain('fact to remember');
    expect(suggestion(() => memory.search(ctx, { query: 'x'.repeat(MEMORY_MAX_CHARS + 1) }))).toContain(
      'Search with a few words',
    );
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
