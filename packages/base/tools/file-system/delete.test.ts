import { afterAll, beforeEach, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JsonObject, ToolContext, ToolResourceSpec } from '@goondan/core';
import { buildToolName, ToolCatalog, ToolExecutor, ToolRegistry } from '@goondan/core';
import { createTestToolContext } from '@goondan/core/testing';
import { baseBundleDir } from '../../src/index.ts';
import { cleanup, errorCodeOf, makeTempDir } from '../../test/helpers.ts';
import { handlers } from './index.ts';

// biome-ignore lint/suspicious/noExplicitAny: results are checked field by field.
type Loose = any;

const dirs: string[] = [];
let workdir: string;
let outsideDir: string;
let ctx: ToolContext;

const remove = async (input: JsonObject, context = ctx): Promise<Loose> => handlers.delete!(context, input);
const exists = (path: string) => existsSync(join(workdir, path));

beforeEach(async () => {
  workdir = await makeTempDir();
  outsideDir = await makeTempDir();
  dirs.push(workdir, outsideDir);
  ctx = createTestToolContext({ workdir, config: { confirmAbove: 5 } });
  await mkdir(join(workdir, 'build/obj/deep'), { recursive: true });
  await mkdir(join(workdir, 'empty'));
  for (const path of ['a.txt', 'b.txt', 'build/app', 'build/obj/x.o', 'build/obj/y.o', 'build/obj/deep/z.o'])
    await writeFile(join(workdir, path), path);
  await writeFile(join(outsideDir, 'secret.txt'), 'top secret');
});
afterAll(() => cleanup(...dirs));

describe('file-system__delete', () => {
  test('deletes named files and an empty directory, each one change', async () => {
    const result = await remove({ paths: ['a.txt', './b.txt', 'empty'] });
    expect(result).toMatchObject({ deleted: 3, paths: ['a.txt', 'b.txt', 'empty'], skippedCount: 0 });
    expect(exists('a.txt') || exists('b.txt') || exists('empty')).toBe(false);
  });

  test('glob: preview lists matches and deletes nothing; over the threshold needs confirm', async () => {
    const preview = await remove({ glob: '**/*.o', preview: true });
    expect(preview).toMatchObject({ count: 3, needsConfirm: false });
    expect(preview.changes).toEqual([
      { path: 'build/obj/deep/z.o', type: 'file', size: 18 },
      { path: 'build/obj/x.o', type: 'file', size: 13 },
      { path: 'build/obj/y.o', type: 'file', size: 13 },
    ]);
    expect(exists('build/obj/x.o')).toBe(true);
    const result = await remove({ glob: 'build/**/*.o' });
    expect(result.deleted).toBe(3);
    expect(exists('build/obj/x.o') || exists('build/obj/deep/z.o')).toBe(false);
    expect(exists('build/app') && exists('build/obj/deep')).toBe(true);

    for (let index = 0; index < 6; index++) await writeFile(join(workdir, `log${index}.tmp`), 'x');
    expect(await errorCodeOf(remove({ glob: '*.tmp' }))).toBe('E_CONFIRM_REQUIRED');
    expect(exists('log0.tmp')).toBe(true);
    expect((await remove({ glob: '*.tmp', confirm: true })).deleted).toBe(6);
  });

  test('a directory with contents needs recursive, then every file under it counts', async () => {
    expect(await errorCodeOf(remove({ paths: ['build'] }))).toBe('E_TOOL');
    expect(exists('build/app')).toBe(true);
    const preview = await remove({ paths: ['build'], recursive: true, preview: true });
    expect(preview.count).toBe(4);
    expect(preview.changes.map((change: Loose) => change.path)).toEqual([
      'build/app',
      'build/obj/deep/z.o',
      'build/obj/x.o',
      'build/obj/y.o',
    ]);
    expect(preview.summary).toContain('3 directories emptied on the way');
    const result = await remove({ paths: ['build', 'build/app'], recursive: true });
    expect(result.deleted).toBe(4);
    expect(exists('build')).toBe(false);
  });

  test('the threshold counts files under a recursive directory', async () => {
    for (let index = 0; index < 3; index++) await writeFile(join(workdir, `build/more${index}`), 'x');
    expect(await errorCodeOf(remove({ paths: ['build'], recursive: true }))).toBe('E_CONFIRM_REQUIRED');
    expect(exists('build/app')).toBe(true);
  });

  test('a missing path fails the whole call before anything is deleted', async () => {
    expect(await errorCodeOf(remove({ paths: ['a.txt', 'missing.txt'] }))).toBe('E_FILE_NOT_FOUND');
    expect(exists('a.txt')).toBe(true);
  });

  test('paths leading outside the workdir are refused; a link inside is deleted, not its target', async () => {
    await symlink(outsideDir, join(workdir, 'out-dir'));
    await symlink(join(outsideDir, 'secret.txt'), join(workdir, 'out-link'));
    await symlink(join(workdir, 'a.txt'), join(workdir, 'in-link'));
    for (const path of ['..', '../x', 'build/../../x', '/etc/passwd', join(outsideDir, 'secret.txt')])
      expect(`${path}: ${await errorCodeOf(remove({ paths: [path] }))}`).toBe(`${path}: E_PATH_OUTSIDE_WORKDIR`);
    expect(await errorCodeOf(remove({ paths: ['out-dir/secret.txt'] }))).toBe('E_PATH_OUTSIDE_WORKDIR');
    expect(await errorCodeOf(remove({ paths: ['out-link'] }))).toBe('E_PATH_OUTSIDE_WORKDIR');
    expect(await errorCodeOf(remove({ paths: ['out-dir'], recursive: true }))).toBe('E_PATH_OUTSIDE_WORKDIR');
    expect(await errorCodeOf(remove({ paths: ['.'], recursive: true }))).toBe('E_TOOL');
    expect(await errorCodeOf(remove({ glob: '../**' }))).toBe('E_PATH_OUTSIDE_WORKDIR');
    expect(await errorCodeOf(remove({ glob: `${outsideDir}/*` }))).toBe('E_PATH_OUTSIDE_WORKDIR');
    expect(await readFile(join(outsideDir, 'secret.txt'), 'utf8')).toBe('top secret');

    expect(await remove({ paths: ['in-link'] })).toMatchObject({ deleted: 1 });
    expect(exists('in-link')).toBe(false);
    expect(exists('a.txt')).toBe(true);
  });

  test('a glob matches links themselves and never walks through them', async () => {
    await symlink(outsideDir, join(workdir, 'out-dir'));
    const result = await remove({ glob: '**', confirm: true });
    expect(result.paths).toContain('out-dir');
    expect(await readFile(join(outsideDir, 'secret.txt'), 'utf8')).toBe('top secret');
    expect(exists('build/obj/deep')).toBe(true);
  });

  test('paths and glob together, neither, an empty or a huge list are invalid', async () => {
    expect(await errorCodeOf(remove({ paths: ['a.txt'], glob: '*.txt' }))).toBe('E_TOOL_INVALID_ARGS');
    expect(await errorCodeOf(remove({}))).toBe('E_TOOL_INVALID_ARGS');
    expect(await errorCodeOf(remove({ paths: [] }))).toBe('E_TOOL_INVALID_ARGS');
    const huge = Array.from({ length: 100_000 }, () => 'a.txt');
    expect(await errorCodeOf(remove({ paths: huge, confirm: true }))).toBe('E_TOOL_INVALID_ARGS');
    expect(exists('a.txt')).toBe(true);
  });
});

describe('file-system__replace and __delete through the executor and the base goondan.yaml', () => {
  test('the schema refuses hostile shapes and the YAML threshold applies', async () => {
    const documents = Bun.YAML.parse(await Bun.file(join(baseBundleDir, 'goondan.yaml')).text()) as {
      metadata: { name: string };
      spec: ToolResourceSpec;
    }[];
    const fileSystem = documents.find((document) => document.metadata.name === 'file-system')!;
    expect(fileSystem.spec.config).toEqual({ confirmAbove: 5 });
    const registry = new ToolRegistry();
    for (const entry of fileSystem.spec.exports.filter((item) => ['replace', 'delete'].includes(item.name))) {
      const item = { name: buildToolName('file-system', entry.name), parameters: entry.parameters };
      registry.register(item, handlers[entry.name]!, { config: fileSystem.spec.config as JsonObject });
    }
    const executor = new ToolExecutor({ registry });
    const catalog = new ToolCatalog(registry.list().map((tool) => tool.item));
    const call = (name: string, args: JsonObject) =>
      executor.execute({ id: 'c', name, args }, { catalog, scope: { ...ctx, logger: console } });

    expect((await call('file-system__replace', { path: '.', find: '', replace: 'x' })).error?.code).toBe(
      'E_TOOL_INVALID_ARGS',
    );
    const huge = Array.from({ length: 1001 }, (_, index) => `f${index}`);
    expect((await call('file-system__delete', { paths: huge })).error?.code).toBe('E_TOOL_INVALID_ARGS');
    expect((await call('file-system__delete', { paths: ['a.txt'], preview: 'yes' })).error?.code).toBe(
      'E_TOOL_INVALID_ARGS',
    );
    for (let index = 0; index < 6; index++) await writeFile(join(workdir, `n${index}.md`), 'old');
    const refused = await call('file-system__replace', { path: '.', find: 'old', replace: 'new', glob: '*.md' });
    expect(refused.error).toMatchObject({ code: 'E_CONFIRM_REQUIRED', name: 'ConfirmRequiredError' });
    expect(refused.error?.message).toContain('more than 5');
    const applied = await call('file-system__replace', {
      path: '.',
      find: 'old',
      replace: 'new',
      glob: '*.md',
      confirm: true,
    });
    expect(applied).toMatchObject({ status: 'ok', output: { replaced: 6 } });
  });
});
