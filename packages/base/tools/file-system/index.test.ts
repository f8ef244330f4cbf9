import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ToolContext } from '@goondan/core';
import { createTestToolContext } from '@goondan/core/testing';
import { cleanup, errorCodeOf, makeTempDir } from '../../test/helpers.ts';
import { handlers, MAX_WRITE_BYTES } from './index.ts';

let workdir: string;
let outsideDir: string;
let ctx: ToolContext;

beforeAll(async () => {
  workdir = await makeTempDir();
  outsideDir = await makeTempDir();
  ctx = createTestToolContext({ workdir });
  await writeFile(join(outsideDir, 'secret.txt'), 'top secret');
  await symlink(join(outsideDir, 'secret.txt'), join(workdir, 'link-to-secret'));
  await symlink(outsideDir, join(workdir, 'link-to-outside-dir'));
  await symlink(join(outsideDir, 'not-yet.txt'), join(workdir, 'dangling-out'));
});
afterAll(() => cleanup(workdir, outsideDir));

// biome-ignore lint/suspicious/noExplicitAny: results are checked field by field.
type Loose = any;
const read = (input: Record<string, unknown>): Promise<Loose> => Promise.resolve(handlers.read!(ctx, input));
const write = (input: Record<string, unknown>): Promise<Loose> => Promise.resolve(handlers.write!(ctx, input));
const list = (input: Record<string, unknown>): Promise<Loose> => Promise.resolve(handlers.list!(ctx, input));

describe('file-system__write and read', () => {
  test('writes, creating parent directories, and reads back', async () => {
    const written = await write({ path: 'notes/day1/a.txt', content: 'héllo\n' });
    expect(written).toEqual({ path: 'notes/day1/a.txt', size: 7, bytesWritten: 7, written: true });
    expect(await readFile(join(workdir, 'notes/day1/a.txt'), 'utf8')).toBe('héllo\n');
    const result = await read({ path: 'notes/day1/a.txt' });
    expect(result).toEqual({
      path: 'notes/day1/a.txt',
      size: 7,
      offset: 0,
      bytesRead: 7,
      truncated: false,
      encoding: 'utf-8',
      content: 'héllo\n',
    });
  });

  test('append adds to the end', async () => {
    await write({ path: 'log.txt', content: 'one\n' });
    const second = await write({ path: 'log.txt', content: 'two\n', append: true });
    expect(second.size).toBe(8);
    expect((await read({ path: 'log.txt' })).content).toBe('one\ntwo\n');
    await write({ path: 'log.txt', content: 'reset' });
    expect((await read({ path: 'log.txt' })).content).toBe('reset');
  });

  test('maxBytes is honoured by bytes, without splitting a UTF-8 character; offset continues', async () => {
    await write({ path: 'utf8.txt', content: 'aé€😀z' }); // 1 + 2 + 3 + 4 + 1 bytes
    const head = await read({ path: 'utf8.txt', maxBytes: 5 });
    expect(head).toMatchObject({ size: 11, truncated: true, content: 'aé', bytesRead: 3, encoding: 'utf-8' });
    const next = await read({ path: 'utf8.txt', offset: head.bytesRead, maxBytes: 7 });
    expect(next).toMatchObject({ content: '€😀', bytesRead: 7, truncated: true });
    const rest = await read({ path: 'utf8.txt', offset: 10 });
    expect(rest).toMatchObject({ content: 'z', truncated: false });
    const past = await read({ path: 'utf8.txt', offset: 100 });
    expect(past).toMatchObject({ content: '', bytesRead: 0, truncated: false });
  });

  test('a large file is cut at the default limit', async () => {
    await writeFile(join(workdir, 'big.txt'), 'x'.repeat(250_000));
    const result = await read({ path: 'big.txt' });
    expect(result).toMatchObject({ size: 250_000, truncated: true, bytesRead: 100_000 });
    expect(result.content.length).toBe(100_000);
  });

  test('binary files come back as base64', async () => {
    await writeFile(join(workdir, 'blob.bin'), new Uint8Array([0xff, 0xfe, 0x00, 0x01]));
    const result = await read({ path: 'blob.bin' });
    expect(result).toMatchObject({ encoding: 'base64', content: '//4AAQ==' });
  });

  test('missing files are E_FILE_NOT_FOUND; a directory is not a file', async () => {
    expect(await errorCodeOf(read({ path: 'missing.txt' }))).toBe('E_FILE_NOT_FOUND');
    expect(await errorCodeOf(read({ path: 'notes' }))).toBe('E_FILE_NOT_FOUND');
    expect(await errorCodeOf(write({ path: 'notes', content: 'x' }))).toBe('E_FILE_NOT_FOUND');
  });

  test('special files are refused without hanging', async () => {
    Bun.spawnSync(['mkfifo', join(workdir, 'pipe')]);
    expect(await errorCodeOf(read({ path: 'pipe' }))).toBe('E_FILE_NOT_FOUND');
    expect(await errorCodeOf(write({ path: 'pipe', content: 'x' }))).toBe('E_FILE_NOT_FOUND');
  });

  test('content over the write cap is E_FILE_TOO_LARGE', async () => {
    const code = await errorCodeOf(write({ path: 'huge.txt', content: 'x'.repeat(MAX_WRITE_BYTES + 1) }));
    expect(code).toBe('E_FILE_TOO_LARGE');
    expect(await Bun.file(join(workdir, 'huge.txt')).exists()).toBe(false);
  });
});

describe('file-system confinement', () => {
  test('".." escapes are refused', async () => {
    expect(await errorCodeOf(read({ path: '../secret.txt' }))).toBe('E_PATH_OUTSIDE_WORKDIR');
    expect(await errorCodeOf(read({ path: 'notes/../../x' }))).toBe('E_PATH_OUTSIDE_WORKDIR');
    expect(await errorCodeOf(write({ path: '../escape.txt', content: 'x' }))).toBe('E_PATH_OUTSIDE_WORKDIR');
    expect(await errorCodeOf(list({ path: '..' }))).toBe('E_PATH_OUTSIDE_WORKDIR');
  });

  test('a name or a path longer than Linux takes is E_TOOL_INVALID_ARGS, not a bare ENAMETOOLONG', async () => {
    const longName = 'n'.repeat(256);
    const deep = `${'d/'.repeat(2100)}f`;
    const nearLimit = `${'d/'.repeat(2040)}f`;
    for (const path of [longName, deep, nearLimit]) {
      expect(await errorCodeOf(write({ path, content: 'x' }))).toBe('E_TOOL_INVALID_ARGS');
      expect(await errorCodeOf(read({ path }))).toBe('E_TOOL_INVALID_ARGS');
    }
    expect(await errorCodeOf(list({ path: longName }))).toBe('E_TOOL_INVALID_ARGS');
    const error = await Promise.resolve(write({ path: longName, content: 'x' })).catch((thrown) => thrown);
    expect(error.message).toContain('a name of 256 bytes; at most 255');
    expect(error.message).not.toContain('/proc/');
    expect((await write({ path: 'n'.repeat(255), content: 'x' })).written).toBe(true);
  });

  test('absolute paths are refused', async () => {
    expect(await errorCodeOf(read({ path: '/etc/passwd' }))).toBe('E_PATH_OUTSIDE_WORKDIR');
    expect(await errorCodeOf(read({ path: join(workdir, 'log.txt') }))).toBe('E_PATH_OUTSIDE_WORKDIR');
    expect(await errorCodeOf(write({ path: '/tmp/escape.txt', content: 'x' }))).toBe('E_PATH_OUTSIDE_WORKDIR');
  });

  test('a symlink to a file outside is refused for read and write', async () => {
    expect(await errorCodeOf(read({ path: 'link-to-secret' }))).toBe('E_PATH_OUTSIDE_WORKDIR');
    expect(await errorCodeOf(write({ path: 'link-to-secret', content: 'pwned' }))).toBe('E_PATH_OUTSIDE_WORKDIR');
    expect(await readFile(join(outsideDir, 'secret.txt'), 'utf8')).toBe('top secret');
  });

  test('a symlinked directory leading outside is refused, also for files not created yet', async () => {
    expect(await errorCodeOf(read({ path: 'link-to-outside-dir/secret.txt' }))).toBe('E_PATH_OUTSIDE_WORKDIR');
    expect(await errorCodeOf(list({ path: 'link-to-outside-dir' }))).toBe('E_PATH_OUTSIDE_WORKDIR');
    const code = await errorCodeOf(write({ path: 'link-to-outside-dir/new/planted.txt', content: 'x' }));
    expect(code).toBe('E_PATH_OUTSIDE_WORKDIR');
    expect(await Bun.file(join(outsideDir, 'new/planted.txt')).exists()).toBe(false);
  });

  test('writing through a dangling symlink that points outside is refused', async () => {
    expect(await errorCodeOf(write({ path: 'dangling-out', content: 'x' }))).toBe('E_PATH_OUTSIDE_WORKDIR');
    expect(await Bun.file(join(outsideDir, 'not-yet.txt')).exists()).toBe(false);
  });

  test('symlinks that stay inside the workdir work', async () => {
    await mkdir(join(workdir, 'real-dir'), { recursive: true });
    await writeFile(join(workdir, 'real-dir', 'inside.txt'), 'inside');
    await symlink(join(workdir, 'real-dir'), join(workdir, 'alias-dir'));
    expect((await read({ path: 'alias-dir/inside.txt' })).content).toBe('inside');
    const written = await write({ path: 'alias-dir/via-alias.txt', content: 'ok' });
    expect(written.path).toBe('alias-dir/via-alias.txt');
    expect(await readFile(join(workdir, 'real-dir', 'via-alias.txt'), 'utf8')).toBe('ok');
  });

  test('a workdir reached through a symlink still works', async () => {
    const linkParent = await makeTempDir();
    try {
      await symlink(workdir, join(linkParent, 'work'));
      const linked = createTestToolContext({ workdir: join(linkParent, 'work') });
      const result = (await handlers.read!(linked, { path: 'real-dir/inside.txt' })) as Loose;
      expect(result.content).toBe('inside');
    } finally {
      await cleanup(linkParent);
    }
  });
});

describe('file-system__list', () => {
  let listDir: string;
  let listCtx: ToolContext;
  beforeAll(async () => {
    listDir = await makeTempDir();
    listCtx = createTestToolContext({ workdir: listDir });
    await mkdir(join(listDir, 'src/deep'), { recursive: true });
    await writeFile(join(listDir, 'b.txt'), '12345');
    await writeFile(join(listDir, 'a.txt'), '1');
    await writeFile(join(listDir, 'src/main.ts'), 'x');
    await writeFile(join(listDir, 'src/deep/x.ts'), 'xy');
    await symlink(outsideDir, join(listDir, 'out-link'));
  });
  afterAll(() => cleanup(listDir));

  test('lists one level, sorted, with types and sizes; symlinks are not followed', async () => {
    const result = (await handlers.list!(listCtx, {})) as Loose;
    expect(result).toEqual({
      path: '.',
      truncated: false,
      entries: [
        { name: 'a.txt', type: 'file', size: 1 },
        { name: 'b.txt', type: 'file', size: 5 },
        { name: 'out-link', type: 'symlink', size: null },
        { name: 'src', type: 'dir', size: null },
      ],
    });
  });

  test('recursive lists subdirectories breadth first', async () => {
    const result = (await handlers.list!(listCtx, { recursive: true })) as Loose;
    expect(result.entries.map((entry: { name: string }) => entry.name)).toEqual([
      'a.txt',
      'b.txt',
      'out-link',
      'src',
      'src/deep',
      'src/main.ts',
      'src/deep/x.ts',
    ]);
    const sub = (await handlers.list!(listCtx, { path: 'src', recursive: true })) as Loose;
    expect(sub.entries.map((entry: { name: string }) => entry.name)).toEqual(['deep', 'main.ts', 'deep/x.ts']);
  });

  test('maxEntries bounds the listing and says so', async () => {
    const result = (await handlers.list!(listCtx, { recursive: true, maxEntries: 3 })) as Loose;
    expect(result.entries).toHaveLength(3);
    expect(result.truncated).toBe(true);
  });

  test('a missing directory is E_FILE_NOT_FOUND', async () => {
    expect(await errorCodeOf(handlers.list!(listCtx, { path: 'nope' }))).toBe('E_FILE_NOT_FOUND');
    expect(await errorCodeOf(handlers.list!(listCtx, { path: 'a.txt' }))).toBe('E_FILE_NOT_FOUND');
  });
});
