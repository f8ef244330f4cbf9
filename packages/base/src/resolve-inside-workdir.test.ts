import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cleanup, errorCodeOf, makeTempDir } from '../test/helpers.ts';
import { resolveInsideWorkdir } from './resolve-inside-workdir.ts';

let workdir: string;
let outsideDir: string;

beforeAll(async () => {
  workdir = await makeTempDir();
  outsideDir = await makeTempDir();
  await mkdir(join(workdir, 'sub'));
  await writeFile(join(workdir, 'sub', 'file.txt'), 'x');
  await symlink(join(workdir, 'sub'), join(workdir, 'inner-link'));
  await symlink(outsideDir, join(workdir, 'outer-link'));
  await symlink(join(workdir, 'loop-b'), join(workdir, 'loop-a'));
  await symlink(join(workdir, 'loop-a'), join(workdir, 'loop-b'));
  // A dangling link whose target is inside, through a link that leads out: must be judged by where it lands.
  await symlink('outer-link/planted.txt', join(workdir, 'sneaky'));
});
afterAll(() => cleanup(workdir, outsideDir));

describe('resolveInsideWorkdir', () => {
  test('normalizes the relative path and reports existence', async () => {
    const existing = await resolveInsideWorkdir(workdir, './sub//file.txt');
    expect(existing).toEqual({
      workdir,
      realPath: join(workdir, 'sub', 'file.txt'),
      relativePath: 'sub/file.txt',
      exists: true,
    });
    const fresh = await resolveInsideWorkdir(workdir, 'sub/new/deeper.txt');
    expect(fresh).toMatchObject({ realPath: join(workdir, 'sub/new/deeper.txt'), exists: false });
    expect((await resolveInsideWorkdir(workdir, '')).relativePath).toBe('.');
    expect((await resolveInsideWorkdir(workdir, 'sub/..')).relativePath).toBe('.');
  });

  test('follows symlinks that stay inside', async () => {
    const result = await resolveInsideWorkdir(workdir, 'inner-link/file.txt');
    expect(result.realPath).toBe(join(workdir, 'sub', 'file.txt'));
    expect(result.relativePath).toBe('inner-link/file.txt');
  });

  test('refuses absolute paths, ".." escapes, links out, dangling links out, loops and NUL bytes', async () => {
    for (const path of [
      '/etc/passwd',
      '..',
      '../x',
      'sub/../../x',
      'outer-link',
      'outer-link/new.txt',
      'sneaky',
      'loop-a',
      'loop-a/x',
      'a\0b',
    ]) {
      expect(`${path} → ${await errorCodeOf(resolveInsideWorkdir(workdir, path))}`).toBe(
        `${path} → E_PATH_OUTSIDE_WORKDIR`,
      );
    }
  });

  test('names starting with ".." that are not escapes are fine', async () => {
    expect((await resolveInsideWorkdir(workdir, '..hidden')).relativePath).toBe('..hidden');
  });

  test('a missing workdir is E_FILE_NOT_FOUND', async () => {
    expect(await errorCodeOf(resolveInsideWorkdir(join(workdir, 'nope'), 'a.txt'))).toBe('E_FILE_NOT_FOUND');
  });
});
