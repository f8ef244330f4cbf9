import { afterAll, afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JsonObject, ToolContext } from '@goondan/core';
import { createTestToolContext } from '@goondan/core/testing';
import { setProcFdDisabledForTests } from '../../src/confinement-test-hook.ts';
import { cleanup, errorCodeOf, makeTempDir } from '../../test/helpers.ts';
import { handlers } from './index.ts';

// biome-ignore lint/suspicious/noExplicitAny: results are checked field by field.
type Loose = any;

const dirs: string[] = [];
let workdir: string;
let outsideDir: string;
let ctx: ToolContext;

const call = async (name: string, input: JsonObject): Promise<Loose> => handlers[name]!(ctx, input);

beforeEach(async () => {
  workdir = await makeTempDir();
  outsideDir = await makeTempDir();
  dirs.push(workdir, outsideDir);
  ctx = createTestToolContext({ workdir, config: { confirmAbove: 100 } });
  await mkdir(join(workdir, 'real/deep'), { recursive: true });
  await writeFile(join(workdir, 'real/deep/a.md'), 'colour');
  await symlink('real', join(workdir, 'alias'));
  await symlink(outsideDir, join(workdir, 'out'));
  await writeFile(join(outsideDir, 'secret.md'), 'colour');
});
afterEach(() => setProcFdDisabledForTests(false));
afterAll(() => cleanup(...dirs));

/** One of each operation, through an inside link where it makes sense, and refusals. */
async function everyOperation() {
  expect((await call('read', { path: 'alias/deep/a.md' })).content).toBe('colour');
  await call('write', { path: 'alias/new/b.md', content: 'colour b' });
  expect(readFileSync(join(workdir, 'real/new/b.md'), 'utf8')).toBe('colour b');
  const listed = await call('list', { path: 'alias', recursive: true });
  expect(listed.entries.map((entry: { name: string }) => entry.name)).toEqual(['deep', 'new', 'deep/a.md', 'new/b.md']);
  expect((await call('replace', { path: 'alias', find: 'colour', replace: 'color' })).replaced).toBe(2);
  expect(readFileSync(join(workdir, 'real/deep/a.md'), 'utf8')).toBe('color');
  expect((await call('delete', { paths: ['alias/new'], recursive: true })).deleted).toBe(1);
  expect(existsSync(join(workdir, 'real/new'))).toBe(false);
  const refused: [string, JsonObject][] = [
    ['read', { path: 'out/secret.md' }],
    ['write', { path: 'out/planted.md', content: 'x' }],
    ['list', { path: 'out' }],
    ['replace', { path: 'out/secret.md', find: 'colour', replace: 'x' }],
    ['delete', { paths: ['out/secret.md'] }],
  ];
  for (const [name, input] of refused) {
    expect(`${name}: ${await errorCodeOf(call(name, input))}`).toBe(`${name}: E_PATH_OUTSIDE_WORKDIR`);
  }
  expect(await errorCodeOf(call('read', { path: 'missing/a.md' }))).toBe('E_FILE_NOT_FOUND');
  expect(readdirSync(outsideDir)).toEqual(['secret.md']);
  expect(readFileSync(join(outsideDir, 'secret.md'), 'utf8')).toBe('colour');
}

/**
 * This process's open descriptors of files and directories under the test's two directories. Counted by what they
 * point at, not in total: other test files run in the same process and close their own descriptors meanwhile.
 */
function descriptorsUnderTestDirs(): string[] {
  const roots = [realpathSync(workdir), realpathSync(outsideDir)];
  const open: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // closed between the listing and the read
    }
    if (roots.some((root) => target === root || target.startsWith(`${root}/`))) open.push(target);
  }
  return open;
}

describe('file-system descriptors and platforms', () => {
  test('every call closes the directories and files it opened, also when it refuses', async () => {
    for (let round = 0; round < 5; round++) {
      await writeFile(join(workdir, 'real/deep/a.md'), 'colour');
      await everyOperation();
    }
    expect(descriptorsUnderTestDirs()).toEqual([]);
  });

  test('without /proc/self/fd (macOS, BSD) the tools behave the same, with the check-and-verify fallback', async () => {
    setProcFdDisabledForTests(true);
    await everyOperation();
  });
});
