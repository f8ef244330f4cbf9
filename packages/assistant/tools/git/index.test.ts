import { afterAll, describe, expect, test } from 'bun:test';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestToolContext } from '@goondan/core/testing';
import { MAX_DIFF_CHARS } from '../../src/git/git-read.ts';
import { handlers } from './index.ts';

const root = mkdtempSync(join(tmpdir(), 'assistant-git-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function sh(cwd: string, ...args: string[]) {
  const run = Bun.spawnSync(['git', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    env: {
      ...process.env,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'T',
      GIT_AUTHOR_EMAIL: 't@example.test',
      GIT_COMMITTER_NAME: 'T',
      GIT_COMMITTER_EMAIL: 't@example.test',
    },
  });
  if (run.exitCode !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
  return run.stdout.toString();
}

function workdir(name: string) {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  return {
    dir,
    ctx: createTestToolContext({
      workdir: dir,
      config: { authorName: 'Assistant', authorEmail: 'assistant@example.test' },
    }),
  };
}

async function codeOf(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return 'none';
  } catch (error) {
    return (error as { code: string }).code;
  }
}

describe('git tools on a real repository', () => {
  test('status, diff, commit, log and branches', async () => {
    const { dir, ctx } = workdir('plain');
    const repo = join(dir, 'notes');
    mkdirSync(repo);
    sh(repo, 'init', '-q');
    writeFileSync(join(repo, 'a.txt'), 'one\n');
    expect(await handlers.log(ctx, { path: 'notes' })).toEqual({ repository: 'notes', commits: [] });
    const status = await handlers.status(ctx, { path: 'notes' });
    expect(status).toMatchObject({
      repository: 'notes',
      branch: 'main',
      clean: false,
      changes: [{ path: 'a.txt', staged: null, unstaged: 'untracked' }],
    });
    const first = await handlers.commit(ctx, { message: '첫 커밋: notes', path: 'notes' });
    expect(first).toMatchObject({ repository: 'notes', branch: 'main', subject: '첫 커밋: notes' });
    expect(first.commit).toMatch(/^[0-9a-f]{40}$/);
    writeFileSync(join(repo, 'a.txt'), 'one\ntwo\n');
    const diff = await handlers.diff(ctx, { path: 'notes' });
    expect(diff.files).toEqual([{ path: 'a.txt', added: 1, removed: 0 }]);
    expect(diff.patch).toContain('+two');
    expect((await handlers.diff(ctx, { path: 'notes', staged: true })).files).toEqual([]);
    await handlers.commit(ctx, { message: 'second', path: 'notes/a.txt' });
    const log = await handlers.log(ctx, { path: 'notes', count: 1 });
    expect(log.commits).toEqual([
      expect.objectContaining({ subject: 'second', author: 'Assistant', email: 'assistant@example.test' }),
    ]);
    expect((await handlers.log(ctx, { path: 'notes' })).commits.map((c) => c.subject)).toEqual([
      'second',
      '첫 커밋: notes',
    ]);
    expect(await codeOf(() => handlers.commit(ctx, { message: 'again', path: 'notes' }))).toBe('E_GIT_FAILED');

    expect(
      (await handlers.branch(ctx, { action: 'create', name: 'feature/x', path: 'notes' })).branches.map((b) => b.name),
    ).toEqual(['feature/x', 'main']);
    expect((await handlers.branch(ctx, { action: 'switch', name: 'feature/x', path: 'notes' })).current).toBe(
      'feature/x',
    );
    writeFileSync(join(repo, 'b.txt'), 'b\n');
    await handlers.commit(ctx, { message: 'on feature', path: 'notes' });
    await handlers.branch(ctx, { action: 'switch', name: 'main', path: 'notes' });
    expect(await codeOf(() => handlers.branch(ctx, { action: 'delete', name: 'feature/x', path: 'notes' }))).toBe(
      'E_GIT_FAILED',
    );
    expect(await codeOf(() => handlers.branch(ctx, { action: 'create', name: '--force', path: 'notes' }))).toBe(
      'E_TOOL_INVALID_ARGS',
    );
    expect(await codeOf(() => handlers.branch(ctx, { action: 'create', name: 'a..b', path: 'notes' }))).toBe(
      'E_TOOL_INVALID_ARGS',
    );
    expect(await codeOf(() => handlers.branch(ctx, { action: 'create', path: 'notes' }))).toBe('E_TOOL_INVALID_ARGS');
    expect((await handlers.branch(ctx, { action: 'list', path: 'notes' })).current).toBe('main');
  });

  test('a big diff is cut and marked', async () => {
    const { dir, ctx } = workdir('big');
    sh(dir, 'init', '-q');
    writeFileSync(join(dir, 'big.txt'), 'x\n');
    await handlers.commit(ctx, { message: 'base' });
    writeFileSync(join(dir, 'big.txt'), `${'line of text\n'.repeat(40_000)}`);
    const diff = await handlers.diff(ctx, {});
    expect(diff.truncated).toBe(true);
    expect(diff.patch.length).toBeLessThan(MAX_DIFF_CHARS + 100);
    expect(diff.files).toEqual([{ path: 'big.txt', added: 40_000, removed: 1 }]);
  });

  test('confined: outside paths, no repository, a parent repository above the workdir, a worktree outside', async () => {
    const parent = join(root, 'parent');
    mkdirSync(parent);
    sh(parent, 'init', '-q');
    const { dir, ctx } = workdir('parent/inner');
    writeFileSync(join(dir, 'f.txt'), 'f');
    expect(await codeOf(() => handlers.status(ctx, {}))).toBe('E_GIT_NOT_REPOSITORY');
    expect(await codeOf(() => handlers.status(ctx, { path: '../' }))).toBe('E_PATH_OUTSIDE_WORKDIR');
    expect(await codeOf(() => handlers.status(ctx, { path: '/etc' }))).toBe('E_PATH_OUTSIDE_WORKDIR');
    expect(await codeOf(() => handlers.status(ctx, { path: 'missing' }))).toBe('E_FILE_NOT_FOUND');
    const escaping = join(dir, 'escaping');
    mkdirSync(escaping);
    sh(escaping, 'init', '-q');
    sh(escaping, 'config', 'core.worktree', root);
    expect(await codeOf(() => handlers.status(ctx, { path: 'escaping' }))).toBe('E_GIT_NOT_REPOSITORY');
  });

  test('confined: a .git file naming a git directory outside the workdir is refused, nothing is written there', async () => {
    const outside = join(root, 'outside-repo');
    mkdirSync(outside);
    sh(outside, 'init', '-q');
    writeFileSync(join(outside, 'x.txt'), 'x');
    sh(outside, 'add', '-A');
    sh(outside, 'commit', '-qm', 'one');
    const { dir, ctx } = workdir('pointing');
    writeFileSync(join(dir, '.git'), `gitdir: ${join(outside, '.git')}\n`);
    writeFileSync(join(dir, 'smuggled.txt'), 'smuggled');
    expect(await codeOf(() => handlers.commit(ctx, { message: 'smuggled' }))).toBe('E_GIT_NOT_REPOSITORY');
    expect(await codeOf(() => handlers.branch(ctx, { action: 'create', name: 'planted' }))).toBe(
      'E_GIT_NOT_REPOSITORY',
    );
    expect(sh(outside, 'log', '--format=%s')).toBe('one\n');
    expect(sh(outside, 'branch', '--list', 'planted')).toBe('');
    const linked = join(dir, 'linked');
    sh(outside, 'worktree', 'add', '-q', linked);
    expect(await codeOf(() => handlers.status(ctx, { path: 'linked' }))).toBe('E_GIT_NOT_REPOSITORY');
  });

  test('a hostile repository runs none of its hooks, fsmonitor, filters, pager, external diff, textconv or gpg', async () => {
    const { dir, ctx } = workdir('hostile');
    const marker = join(root, 'HOSTILE_RAN');
    const script = join(root, 'evil.sh');
    writeFileSync(script, `#!/bin/sh\necho "$0 $*" >> ${marker}\ncat\n`);
    chmodSync(script, 0o755);
    sh(dir, 'init', '-q');
    for (const hook of [
      'pre-commit',
      'commit-msg',
      'post-commit',
      'post-checkout',
      'prepare-commit-msg',
      'reference-transaction',
    ]) {
      writeFileSync(join(dir, '.git', 'hooks', hook), `#!/bin/sh\necho ${hook} >> ${marker}\n`);
      chmodSync(join(dir, '.git', 'hooks', hook), 0o755);
    }
    const set = (key: string, value: string) => sh(dir, 'config', key, value);
    set('core.fsmonitor', script);
    set('core.hooksPath', join(dir, '.git', 'hooks'));
    set('core.pager', script);
    set('filter.evil.clean', script);
    set('filter.evil.smudge', script);
    set('filter.evil.required', 'true');
    set('diff.external', script);
    set('diff.evil.textconv', script);
    set('diff.evil.command', script);
    set('log.showSignature', 'true');
    set('gpg.program', script);
    set('commit.gpgSign', 'true');
    set('user.name', 'Hostile');
    set('user.email', 'h@example.test');
    writeFileSync(join(dir, '.gitattributes'), '*.txt filter=evil diff=evil\n');
    writeFileSync(join(dir, 'a.txt'), 'one\n');
    await handlers.commit(ctx, { message: 'first' });
    writeFileSync(join(dir, 'a.txt'), 'one\ntwo\n');
    await handlers.status(ctx, {});
    expect((await handlers.diff(ctx, {})).patch).toContain('+two');
    await handlers.commit(ctx, { message: 'second' });
    await handlers.log(ctx, {});
    await handlers.branch(ctx, { action: 'create', name: 'other' });
    await handlers.branch(ctx, { action: 'switch', name: 'other' });
    await handlers.diff(ctx, { staged: true });
    expect(existsSync(marker)).toBe(false);
    // The same repository does run them under plain git: the marker is a real detector.
    sh(dir, 'status');
    expect(existsSync(marker)).toBe(true);
  });
});
