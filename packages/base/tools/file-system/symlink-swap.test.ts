import { afterAll, afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync, renameSync, symlinkSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JsonObject, ToolContext } from '@goondan/core';
import { createTestToolContext } from '@goondan/core/testing';
import { type ConfinementStage, setConfinementHook } from '../../src/confinement-test-hook.ts';
import { cleanup, makeTempDir, snapshotTree } from '../../test/helpers.ts';
import { handlers } from './index.ts';

// biome-ignore lint/suspicious/noExplicitAny: results are checked field by field.
type Loose = any;

const dirs: string[] = [];
let workdir: string;
let outsideDir: string;
let ctx: ToolContext;

const outsideTree = {
  'f.txt': 'OUTSIDE colour',
  'sub/g.txt': 'OUTSIDE colour g',
  'sub/outside-only.txt': 'OUTSIDE colour only',
};

beforeEach(async () => {
  workdir = await makeTempDir();
  outsideDir = await makeTempDir();
  dirs.push(workdir, outsideDir);
  ctx = createTestToolContext({ workdir, config: { confirmAbove: 100 } });
  await mkdir(join(workdir, 'd/sub'), { recursive: true });
  await writeFile(join(workdir, 'd/f.txt'), 'inside colour');
  await writeFile(join(workdir, 'd/sub/g.txt'), 'inside colour g');
  await mkdir(join(outsideDir, 'sub'));
  for (const [path, content] of Object.entries(outsideTree)) await writeFile(join(outsideDir, path), content);
});
afterEach(() => setConfinementHook(undefined));
afterAll(() => cleanup(...dirs));

/**
 * Runs one tool call while, at `stage` (after the path was confined, before the tool acts), the workdir's `d` is
 * renamed to `d.real` and replaced by a symbolic link to the outside directory. Checks nothing outside changed.
 */
async function attack(stage: ConfinementStage, name: string, input: JsonObject) {
  const before = snapshotTree(outsideDir);
  let swapped = false;
  setConfinementHook((at) => {
    if (at !== stage || swapped) return;
    swapped = true;
    renameSync(join(workdir, 'd'), join(workdir, 'd.real'));
    symlinkSync(outsideDir, join(workdir, 'd'));
  });
  let result: Loose;
  let code: string | undefined;
  try {
    result = await handlers[name]!(ctx, input);
  } catch (thrown) {
    code = (thrown as { code?: string }).code ?? String(thrown);
  }
  setConfinementHook(undefined);
  expect(swapped).toBe(true);
  expect(snapshotTree(outsideDir)).toEqual(before);
  expect(JSON.stringify(result ?? null)).not.toContain('OUTSIDE');
  expect(JSON.stringify(result ?? null)).not.toContain('outside-only');
  return { result, code };
}

const inside = (path: string) => join(workdir, 'd.real', path);

describe('a parent directory swapped for a symbolic link between the check and the use', () => {
  test('read reads the directory that was checked', async () => {
    expect((await attack('read', 'read', { path: 'd/f.txt' })).result.content).toBe('inside colour');
  });

  test('read of a deeper file too', async () => {
    expect((await attack('read', 'read', { path: 'd/sub/g.txt' })).result.content).toBe('inside colour g');
  });

  test('write creates the file in the directory that was checked', async () => {
    await attack('write', 'write', { path: 'd/new.txt', content: 'planted' });
    expect(readFileSync(inside('new.txt'), 'utf8')).toBe('planted');
  });

  test('write overwrites only the file that was checked', async () => {
    await attack('write', 'write', { path: 'd/f.txt', content: 'planted' });
    expect(readFileSync(inside('f.txt'), 'utf8')).toBe('planted');
  });

  test('write creates missing parent directories inside only', async () => {
    await attack('write', 'write', { path: 'd/newdir/deeper/x.txt', content: 'planted' });
    expect(existsSync(join(outsideDir, 'newdir'))).toBe(false);
    expect(readFileSync(inside('newdir/deeper/x.txt'), 'utf8')).toBe('planted');
  });

  test('list lists the directory that was checked', async () => {
    const { result } = await attack('list', 'list', { path: 'd/sub', recursive: true });
    expect(result.entries).toEqual([{ name: 'g.txt', type: 'file', size: 15 }]);
  });

  test('replace of a named file, swapped while planning', async () => {
    await attack('replace-plan', 'replace', { path: 'd/f.txt', find: 'colour', replace: 'color' });
  });

  test('replace of a named file, swapped before writing (the file outside holds the same text)', async () => {
    await writeFile(join(outsideDir, 'f.txt'), 'inside colour');
    await attack('replace-apply', 'replace', { path: 'd/f.txt', find: 'colour', replace: 'color' });
  });

  test('replace in a directory, swapped while planning and before writing', async () => {
    await attack('replace-plan', 'replace', { path: 'd/sub', find: 'colour', replace: 'color' });
    await writeFile(join(workdir, 'd.real/sub/g.txt'), 'inside colour g');
    await cleanup(join(workdir, 'd'));
    renameSync(join(workdir, 'd.real'), join(workdir, 'd'));
    await attack('replace-apply', 'replace', { path: '.', find: 'colour', replace: 'color' });
  });

  test('delete of a named file, swapped while planning and before deleting', async () => {
    await attack('delete-plan', 'delete', { paths: ['d/f.txt'] });
    await cleanup(join(workdir, 'd'));
    renameSync(join(workdir, 'd.real'), join(workdir, 'd'));
    await writeFile(join(workdir, 'd/f.txt'), 'inside colour');
    await attack('delete-apply', 'delete', { paths: ['d/f.txt'] });
  });

  test('delete of a directory tree and of a glob, swapped before deleting', async () => {
    await attack('delete-apply', 'delete', { paths: ['d/sub'], recursive: true });
    await cleanup(join(workdir, 'd'));
    renameSync(join(workdir, 'd.real'), join(workdir, 'd'));
    await attack('delete-apply', 'delete', { glob: 'd/**' });
  });
});
