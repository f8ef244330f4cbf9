// What a commit answers when git cannot do its part: the lock a git killed with kill -9 leaves behind, a worktree
// deleted from under the changeset, a message git cannot take. Every answer names the thing and what to do, and
// nothing is lost (real git).
import { afterEach, describe, expect, test } from 'bun:test';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { handlers } from '../tools/swarm-bundle/index.ts';
import { commit, contextFor, gitBundle, openAndEdit, removeBundles, runGit } from './changeset-helpers.ts';

afterEach(removeBundles);

describe('a commit whose git fails', () => {
  test("the index lock of a git killed in the changeset's worktree: failed naming the lock; removed, the commit lands", async () => {
    const { dir, workdir } = await gitBundle();
    await openAndEdit(workdir, 'locked', (text) => text.replace('You build.', 'You build politely.'));
    const lock = join(dir, '.git', 'worktrees', 'locked', 'index.lock');
    await writeFile(lock, '');
    const result = await commit(workdir, 'locked');
    expect(result).toMatchObject({ status: 'failed', code: 'E_CHANGESET_FAILED' });
    expect(String(result.message)).toContain(`Unable to create '${lock}': File exists`);
    expect(String(result.suggestion)).toBe(
      `If no git process is running in this repository (one killed with kill -9 leaves its lock behind), remove ${lock}, then commit the changeset again; it is still open.`,
    );
    await rm(lock);
    expect(await commit(workdir, 'locked')).toMatchObject({ status: 'ok', changed: [{ path: 'goondan.yaml' }] });
  });

  test("the bundle's own index lock left by a killed git: nothing is activated, the branch stays, the lock is named", async () => {
    const { dir, workdir } = await gitBundle();
    const before = await runGit(dir, 'rev-parse', 'main');
    await openAndEdit(workdir, 'main-locked', (text) => text.replace('You build.', 'You build politely.'));
    const lock = join(dir, '.git', 'index.lock');
    await writeFile(lock, '');
    const result = await commit(workdir, 'main-locked');
    expect(result).toMatchObject({ status: 'failed', code: 'E_CHANGESET_FAILED' });
    expect(String(result.message)).toContain(`Unable to create '${lock}': File exists. Nothing was activated.`);
    expect(String(result.suggestion)).toContain(`remove ${lock}, then commit the changeset again`);
    expect(await runGit(dir, 'rev-parse', 'main')).toBe(before);
    await rm(lock);
    expect(await commit(workdir, 'main-locked')).toMatchObject({ status: 'ok' });
    expect(await readFile(join(dir, 'goondan.yaml'), 'utf8')).toContain('You build politely.');
  });

  test('a worktree deleted from under its changeset: failed saying it is gone (not that git is missing); reopened, it commits', async () => {
    const { workdir } = await gitBundle();
    await openAndEdit(workdir, 'deleted', (text) => `${text}# scratch\n`, 'notes.md');
    await rm(join(workdir, 'changesets', 'deleted'), { recursive: true });
    const result = await commit(workdir, 'deleted');
    expect(result).toMatchObject({ status: 'failed', code: 'E_CHANGESET_FAILED' });
    expect(String(result.message)).toContain("The workdir of changeset 'deleted'");
    expect(String(result.message)).toContain('is gone');
    expect(String(result.suggestion)).toContain('swarm-bundle__open_changeset {"name":"deleted"}');
    expect(String(result.suggestion)).not.toContain('Install git');
    expect(await handlers.open_changeset(contextFor(workdir), { name: 'deleted' })).toMatchObject({ created: false });
    await writeFile(join(workdir, 'changesets', 'deleted', 'notes.md'), 'notes again\n');
    expect(await commit(workdir, 'deleted')).toMatchObject({ status: 'ok', changed: [{ path: 'notes.md' }] });
  });

  test('a commit message with a NUL character is E_TOOL_INVALID_ARGS, not a missing git', async () => {
    const { workdir } = await gitBundle();
    await openAndEdit(workdir, 'nul', (text) => `${text}# scratch\n`, 'notes.md');
    const error = await Promise.resolve(
      handlers.commit_changeset(contextFor(workdir), { changeset: 'nul', message: 'a\u0000b' }),
    ).catch((thrown) => thrown);
    expect(error).toMatchObject({ code: 'E_TOOL_INVALID_ARGS' });
    expect(String(error.message)).toContain('NUL');
  });
});
