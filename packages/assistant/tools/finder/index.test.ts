import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestToolContext } from '@goondan/core/testing';
import { assistantToolset } from '../../test/assistant-toolset.ts';
import { setEnvironment } from '../../test/desktop-session.ts';
import { fakeOpener } from '../../test/fake-opener.ts';
import { handlers } from './index.ts';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'assistant-finder-')));
const workdir = join(root, 'work');
const opener = fakeOpener(root);
let restore: () => void;
beforeAll(() => {
  mkdirSync(join(workdir, 'notes'), { recursive: true });
  writeFileSync(join(workdir, 'notes', '회의.md'), '# 회의\n');
  writeFileSync(join(workdir, 'a.txt'), 'abc');
  symlinkSync(root, join(workdir, 'escape'));
  restore = setEnvironment({ PATH: opener.path, DISPLAY: ':99', WAYLAND_DISPLAY: undefined });
});
afterAll(() => {
  restore?.();
  rmSync(root, { recursive: true, force: true });
});

const ctx = createTestToolContext({ workdir });

async function codeOf(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return 'none';
  } catch (error) {
    return (error as { code: string }).code;
  }
}

describe('finder__* (a fake xdg-open that records its arguments)', () => {
  test('get_selection is not offered on Linux, saying why; reveal and list_dir are', async () => {
    const { offered, unavailable } = await assistantToolset({ finder: null });
    expect(offered).toEqual(['finder__reveal', 'finder__list_dir']);
    expect(unavailable).toEqual({ finder__get_selection: 'not available on linux (only darwin)' });
  });

  test('reveal opens the folder of a workdir file, or the folder itself', async () => {
    expect(await handlers.reveal(ctx, { path: 'notes/회의.md' })).toEqual({
      revealed: 'notes/회의.md',
      shown: join(workdir, 'notes'),
    });
    expect(await handlers.reveal(ctx, { path: 'notes' })).toEqual({ revealed: 'notes', shown: join(workdir, 'notes') });
    expect(opener.opened()).toEqual([join(workdir, 'notes'), join(workdir, 'notes')]);
  });

  test('paths outside the workdir (.., absolute, through a link) and missing paths are refused', async () => {
    for (const path of ['../opened.log', '/etc', 'escape/opened.log']) {
      expect(await codeOf(() => handlers.reveal(ctx, { path }))).toBe('E_PATH_OUTSIDE_WORKDIR');
    }
    expect(await codeOf(() => handlers.reveal(ctx, { path: 'missing.txt' }))).toBe('E_FILE_NOT_FOUND');
    expect(opener.opened()).toHaveLength(2);
  });

  test('list_dir lists a workdir folder, folders first', async () => {
    expect(await handlers.list_dir(ctx, {})).toEqual({
      path: '.',
      entries: [
        { name: 'notes', type: 'folder', size: null },
        { name: 'a.txt', type: 'file', size: 3 },
        { name: 'escape', type: 'link', size: null },
      ],
      truncated: false,
    });
    expect(await codeOf(() => handlers.list_dir(ctx, { path: '..' }))).toBe('E_PATH_OUTSIDE_WORKDIR');
  });
});
