// The size limits of a changeset (docs/changesets.md#limits), through the swarm-bundle tool on real git: a commit
// over a limit is refused with E_CHANGESET_TOO_LARGE before anything reaches git, and the changeset is as it was.
import { afterEach, describe, expect, test } from 'bun:test';
import { mkdir, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { baseBundleDir } from '../src/base-bundle-dir.ts';
import {
  MAX_CHANGESET_BYTES,
  MAX_CHANGESET_FILE_BYTES,
  MAX_CHANGESET_FILES,
} from '../src/changesets/changeset-limits.ts';
import { commitChangeset, locateBundleRepository } from '../src/index.ts';
import { handlers } from '../tools/swarm-bundle/index.ts';
import { commit, contextFor, gitBundle, openAndEdit, removeBundles, runGit } from './changeset-helpers.ts';

afterEach(removeBundles);

/** What git holds of a changeset: its branch tip, its index and files as git status sees them. */
async function gitState(dir: string, worktree: string) {
  return {
    active: await runGit(dir, 'rev-parse', 'main'),
    tip: await runGit(worktree, 'rev-parse', 'HEAD'),
    status: await runGit(worktree, 'status', '--porcelain', '--untracked-files=all'),
    staged: await runGit(worktree, 'diff', '--cached', '--name-only'),
  };
}

/** Whether git's object store holds the content of `file` (git hash-object without -w only computes the id). */
async function stored(worktree: string, file: string): Promise<boolean> {
  const id = await runGit(worktree, 'hash-object', file);
  const proc = Bun.spawn(['git', 'cat-file', '-e', id], { cwd: worktree, stdout: 'ignore', stderr: 'ignore' });
  return (await proc.exited) === 0;
}

describe('changeset limits', () => {
  test('a file over the per-file limit is refused with E_CHANGESET_TOO_LARGE; nothing reaches git; made smaller, it commits', async () => {
    const { dir, workdir } = await gitBundle();
    await openAndEdit(workdir, 'big', (text) => text.replace('You build.', 'You build big.'));
    const worktree = join(workdir, 'changesets', 'big');
    await mkdir(join(worktree, 'assets'));
    await writeFile(join(worktree, 'assets', 'huge.bin'), Buffer.alloc(MAX_CHANGESET_FILE_BYTES + 1, 1));
    const before = await gitState(dir, worktree);

    const result = await commit(workdir, 'big');
    expect(result).toMatchObject({
      status: 'rejected',
      changeset: 'big',
      code: 'E_CHANGESET_TOO_LARGE',
      helpUrl: expect.stringContaining('E_CHANGESET_TOO_LARGE'),
      problems: [],
      outsidePolicy: [],
      tooLarge: {
        files: 2,
        overFileLimit: 1,
        limits: { fileBytes: MAX_CHANGESET_FILE_BYTES, bytes: MAX_CHANGESET_BYTES, files: MAX_CHANGESET_FILES },
      },
    });
    const tooLarge = result.tooLarge as { largest: { path: string; bytes: number; at: string }[] };
    expect(tooLarge.largest[0]).toEqual({
      path: 'assets/huge.bin',
      bytes: MAX_CHANGESET_FILE_BYTES + 1,
      at: join('changesets', 'big', 'assets', 'huge.bin'),
    });
    expect(String(result.message)).toContain(`assets/huge.bin (10 MiB (${MAX_CHANGESET_FILE_BYTES + 1} bytes))`);
    expect(String(result.message)).toContain('Nothing was committed');
    expect(String(result.suggestion)).toContain('the changeset is still open');
    // The changeset is exactly as it was: same tip, nothing staged, the same files; the big file is not in git.
    expect(await gitState(dir, worktree)).toEqual(before);
    expect(await stored(worktree, join('assets', 'huge.bin'))).toBe(false);
    expect(((await handlers.status(contextFor(workdir))) as { open: { changeset: string }[] }).open).toMatchObject([
      { changeset: 'big' },
    ]);

    await truncate(join(worktree, 'assets', 'huge.bin'), 1024);
    const again = await commit(workdir, 'big');
    expect(again).toMatchObject({ status: 'ok', changed: [{ path: 'assets/huge.bin', change: 'added' }, {}] });
  });

  test('more files than the limit are refused, counted without being read', async () => {
    const { dir, workdir } = await gitBundle();
    await openAndEdit(workdir, 'many', (text) => text);
    const worktree = join(workdir, 'changesets', 'many');
    await mkdir(join(worktree, 'many'));
    await Promise.all(
      Array.from({ length: MAX_CHANGESET_FILES + 1 }, (_, index) =>
        writeFile(join(worktree, 'many', `${index}.md`), 'x'),
      ),
    );
    const before = await gitState(dir, worktree);
    const result = await commit(workdir, 'many');
    expect(result).toMatchObject({
      status: 'rejected',
      code: 'E_CHANGESET_TOO_LARGE',
      tooLarge: { files: MAX_CHANGESET_FILES + 1 },
    });
    expect(String(result.message)).toContain(
      `adds, changes or deletes ${MAX_CHANGESET_FILES + 1} files; at most ${MAX_CHANGESET_FILES}`,
    );
    expect(await gitState(dir, worktree)).toEqual(before);
  });

  test('files each within the limit but over the total are refused, naming the largest', async () => {
    const { dir, workdir } = await gitBundle();
    await openAndEdit(workdir, 'total', (text) => text);
    const worktree = join(workdir, 'changesets', 'total');
    const each = MAX_CHANGESET_FILE_BYTES - 1;
    const count = Math.floor(MAX_CHANGESET_BYTES / each) + 1;
    for (let index = 0; index < count; index++)
      await writeFile(join(worktree, `part-${index}.bin`), Buffer.alloc(each - index, 2));
    const before = await gitState(dir, worktree);
    const result = await commit(workdir, 'total');
    expect(result).toMatchObject({
      status: 'rejected',
      code: 'E_CHANGESET_TOO_LARGE',
      tooLarge: { files: count, overFileLimit: 0 },
    });
    const tooLarge = result.tooLarge as { bytes: number; largest: { path: string }[] };
    expect(tooLarge.bytes).toBeGreaterThan(MAX_CHANGESET_BYTES);
    expect(tooLarge.largest[0]!.path).toBe('part-0.bin');
    expect(String(result.message)).toContain(`at most 50 MiB (${MAX_CHANGESET_BYTES} bytes) can be in one changeset`);
    expect(await gitState(dir, worktree)).toEqual(before);
    for (let index = 0; index < count; index++) expect(await stored(worktree, `part-${index}.bin`)).toBe(false);
  });

  test('a large file committed by hand in the worktree (git commit there) counts too', async () => {
    const { dir, workdir } = await gitBundle();
    await openAndEdit(workdir, 'sneaky', (text) => text);
    const worktree = join(workdir, 'changesets', 'sneaky');
    await writeFile(join(worktree, 'huge.bin'), Buffer.alloc(MAX_CHANGESET_FILE_BYTES + 10, 3));
    await runGit(worktree, 'add', 'huge.bin');
    await runGit(worktree, 'commit', '-q', '-m', 'by hand');
    const before = await gitState(dir, worktree);
    const result = await commit(workdir, 'sneaky');
    expect(result).toMatchObject({ status: 'rejected', code: 'E_CHANGESET_TOO_LARGE', tooLarge: { overFileLimit: 1 } });
    expect(await gitState(dir, worktree)).toEqual(before);
  });

  test('a commit that discards on failure (self-edits, revert) discards a changeset over a limit and says so', async () => {
    const { dir, workdir } = await gitBundle();
    await openAndEdit(workdir, 'edit', (text) => text);
    await writeFile(join(workdir, 'changesets', 'edit', 'huge.bin'), Buffer.alloc(MAX_CHANGESET_FILE_BYTES + 1));
    const result = await commitChangeset({
      repository: await locateBundleRepository(dir),
      changeset: 'edit',
      message: 'edit',
      allowedPaths: ['**'],
      libraries: [baseBundleDir],
      afterFailure: { type: 'discard', retry: 'call the tool again' },
    });
    expect(result).toMatchObject({ status: 'rejected', code: 'E_CHANGESET_TOO_LARGE' });
    expect(result.status === 'rejected' && result.suggestion).toStartWith(
      'The changeset was discarded; nothing was changed. Make that file smaller',
    );
    expect(await runGit(dir, 'branch', '--list', 'goondan/*')).toBe('');
  });
});
