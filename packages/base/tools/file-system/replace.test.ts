import { afterAll, beforeEach, describe, expect, test } from 'bun:test';
import { chmod, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JsonObject, ToolContext } from '@goondan/core';
import { createTestToolContext } from '@goondan/core/testing';
import { cleanup, errorCodeOf, makeTempDir } from '../../test/helpers.ts';
import { handlers } from './index.ts';
import { MAX_REPLACE_FILE_BYTES } from './replace.ts';

// biome-ignore lint/suspicious/noExplicitAny: results are checked field by field.
type Loose = any;

const dirs: string[] = [];
let workdir: string;
let outsideDir: string;
let ctx: ToolContext;

const replace = async (input: JsonObject, context = ctx): Promise<Loose> => handlers.replace!(context, input);
const text = (path: string) => readFile(join(workdir, path), 'utf8');
const bytes = (path: string) => readFile(join(workdir, path));

/** docs/ holds 7 occurrences of "colour" in 3 Markdown files, plus a text file and a binary file that also match. */
const tree: Record<string, string | Uint8Array> = {
  'docs/a.md': '# colour\nThe colour of the sky.\nNo match here.\nColour (capital) does not count; colour does.\n',
  'docs/b.md': 'colour\r\nsecond colour line\r\n',
  'docs/sub/c.md': 'one colour, two colour',
  'docs/notes.txt': 'a colour in a text file\n',
  'docs/blob.md': new Uint8Array([0x63, 0x6f, 0x6c, 0x6f, 0x75, 0x72, 0x00, 0xff]),
};

beforeEach(async () => {
  workdir = await makeTempDir();
  outsideDir = await makeTempDir();
  dirs.push(workdir, outsideDir);
  ctx = createTestToolContext({ workdir, config: { confirmAbove: 5 } });
  for (const [path, content] of Object.entries(tree)) {
    await mkdir(join(workdir, path, '..'), { recursive: true });
    await writeFile(join(workdir, path), content);
  }
  await writeFile(join(outsideDir, 'secret.md'), 'outside colour');
});
afterAll(() => cleanup(...dirs));

describe('file-system__replace', () => {
  test('7 occurrences in 3 files: refused without confirm, previewed without change, applied with confirm', async () => {
    const files = ['docs/a.md', 'docs/b.md', 'docs/sub/c.md', 'docs/notes.txt', 'docs/blob.md'];
    const before = await Promise.all(files.map(bytes));
    const input = { path: 'docs', find: 'colour', replace: 'color', glob: '**/*.md' };

    const refused = await errorCodeOf(replace(input));
    expect(refused).toBe('E_CONFIRM_REQUIRED');

    const preview = await replace({ ...input, preview: true });
    expect(preview).toMatchObject({ preview: true, count: 7, needsConfirm: true, threshold: 5, truncated: false });
    expect(preview.summary).toContain('7 occurrences in 3 files');
    expect(preview.changes[0]).toEqual({
      file: 'docs/a.md',
      line: 1,
      column: 3,
      before: '# colour',
      after: '# color',
    });
    expect(preview.changes.map((change: Loose) => `${change.file}:${change.line}`)).toEqual([
      'docs/a.md:1',
      'docs/a.md:2',
      'docs/a.md:4',
      'docs/b.md:1',
      'docs/b.md:2',
      'docs/sub/c.md:1',
      'docs/sub/c.md:1',
    ]);
    expect(preview.changes[4]).toMatchObject({ before: 'second colour line', after: 'second color line' });
    expect(await Promise.all(files.map(bytes))).toEqual(before);

    const applied = await replace({ ...input, confirm: true });
    expect(applied).toMatchObject({
      replaced: 7,
      files: [
        { file: 'docs/a.md', replacements: 3 },
        { file: 'docs/b.md', replacements: 2 },
        { file: 'docs/sub/c.md', replacements: 2 },
      ],
    });
    expect(applied.skipped).toContainEqual({ file: 'docs/blob.md', reason: 'binary (not UTF-8 text)' });
    expect(await text('docs/a.md')).toBe(
      '# color\nThe color of the sky.\nNo match here.\nColour (capital) does not count; color does.\n',
    );
    expect(await text('docs/b.md')).toBe('color\r\nsecond color line\r\n');
    expect(await text('docs/sub/c.md')).toBe('one color, two color');
    expect(await text('docs/notes.txt')).toBe('a colour in a text file\n');
    expect(await bytes('docs/blob.md')).toEqual(before[4]!);
  });

  test('a single file with few matches applies at once, keeping its mode; $ patterns are literal', async () => {
    await chmod(join(workdir, 'docs/sub/c.md'), 0o600);
    const result = await replace({ path: 'docs/sub/c.md', find: 'colour', replace: '$&-$1' });
    expect(result).toMatchObject({ replaced: 2, searched: 1, files: [{ file: 'docs/sub/c.md', replacements: 2 }] });
    expect(await text('docs/sub/c.md')).toBe('one $&-$1, two $&-$1');
    expect((await stat(join(workdir, 'docs/sub/c.md'))).mode & 0o777).toBe(0o600);
  });

  test('no match still answers, with zero replaced', async () => {
    expect(await replace({ path: 'docs', find: 'absent', replace: 'x' })).toMatchObject({ replaced: 0, files: [] });
  });

  test('a named binary file is refused rather than skipped silently', async () => {
    expect(await errorCodeOf(replace({ path: 'docs/blob.md', find: 'colour', replace: 'x' }))).toBe('E_TOOL');
  });

  test('empty find and a glob with a file path are invalid arguments', async () => {
    expect(await errorCodeOf(replace({ path: 'docs', find: '', replace: 'x' }))).toBe('E_TOOL_INVALID_ARGS');
    const withGlob = replace({ path: 'docs/a.md', find: 'colour', replace: 'x', glob: '*.md' });
    expect(await errorCodeOf(withGlob)).toBe('E_TOOL_INVALID_ARGS');
  });

  test('paths and globs that lead outside the workdir are refused', async () => {
    const attempt = (input: JsonObject) => errorCodeOf(replace({ find: 'colour', replace: 'x', ...input }));
    expect(await attempt({ path: '..' })).toBe('E_PATH_OUTSIDE_WORKDIR');
    expect(await attempt({ path: 'docs/../../x' })).toBe('E_PATH_OUTSIDE_WORKDIR');
    expect(await attempt({ path: outsideDir })).toBe('E_PATH_OUTSIDE_WORKDIR');
    expect(await attempt({ path: '/etc/hostname' })).toBe('E_PATH_OUTSIDE_WORKDIR');
    expect(await attempt({ path: 'docs', glob: '../**/*.md' })).toBe('E_PATH_OUTSIDE_WORKDIR');
    expect(await attempt({ path: 'docs', glob: '/tmp/**' })).toBe('E_PATH_OUTSIDE_WORKDIR');
    await symlink(outsideDir, join(workdir, 'out'));
    await symlink(join(outsideDir, 'secret.md'), join(workdir, 'secret-link.md'));
    expect(await attempt({ path: 'out' })).toBe('E_PATH_OUTSIDE_WORKDIR');
    expect(await attempt({ path: 'out/secret.md' })).toBe('E_PATH_OUTSIDE_WORKDIR');
    expect(await attempt({ path: 'secret-link.md' })).toBe('E_PATH_OUTSIDE_WORKDIR');
    expect(await readFile(join(outsideDir, 'secret.md'), 'utf8')).toBe('outside colour');
  });

  test('symbolic links met while scanning a directory are not followed', async () => {
    await symlink(outsideDir, join(workdir, 'docs/out'));
    await symlink(join(outsideDir, 'secret.md'), join(workdir, 'docs/secret-link.md'));
    const result = await replace({ path: '.', find: 'colour', replace: 'color', glob: 'docs/**', confirm: true });
    expect(result.replaced).toBe(8);
    expect(result.skipped).toContainEqual({ file: 'docs/out', reason: 'symbolic link, not followed' });
    expect(result.skipped).toContainEqual({ file: 'docs/secret-link.md', reason: 'symbolic link, not followed' });
    expect(await readFile(join(outsideDir, 'secret.md'), 'utf8')).toBe('outside colour');
  });

  test('the config threshold is the one that counts', async () => {
    const strict = createTestToolContext({ workdir, config: { confirmAbove: 1 } });
    const code = await errorCodeOf(replace({ path: 'docs/sub/c.md', find: 'colour', replace: 'x' }, strict));
    expect(code).toBe('E_CONFIRM_REQUIRED');
    const loose = createTestToolContext({ workdir, config: { confirmAbove: 100 } });
    expect((await replace({ path: 'docs', find: 'colour', replace: 'x' }, loose)).replaced).toBe(8);
  });

  test('a long line is shown around the match only', async () => {
    await writeFile(join(workdir, 'long.txt'), `${'a'.repeat(500)}colour${'b'.repeat(500)}\nnext`);
    const preview = await replace({ path: 'long.txt', find: 'colour', replace: 'color', preview: true });
    const change = preview.changes[0];
    expect(change.before).toBe(`…${'a'.repeat(40)}colour${'b'.repeat(40)}…`);
    expect(change.after).toBe(`…${'a'.repeat(40)}color${'b'.repeat(40)}…`);
  });

  test('files over the size cap are skipped in a directory and refused by name', async () => {
    await writeFile(join(workdir, 'docs/huge.md'), 'colour'.padEnd(MAX_REPLACE_FILE_BYTES + 1, 'x'));
    const preview = await replace({ path: 'docs', find: 'colour', replace: 'x', glob: '*.md', preview: true });
    expect(preview.count).toBe(5);
    expect(preview.summary).toContain('(2 skipped)');
    expect(await errorCodeOf(replace({ path: 'docs/huge.md', find: 'colour', replace: 'x' }))).toBe('E_TOOL');
  });
});
