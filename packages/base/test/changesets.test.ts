import { afterEach, describe, expect, test } from 'bun:test';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GoondanError } from '@goondan/core/errors';
import { createTestToolContext } from '@goondan/core/testing';
import { baseBundleDir } from '../src/base-bundle-dir.ts';
import { commitChangeset, listChanges, locateBundleRepository, revertChange } from '../src/index.ts';
import { handlers } from '../tools/swarm-bundle/index.ts';
import {
  bundleYaml,
  commit,
  contextFor,
  gitBundle,
  type Output,
  openAndEdit,
  removeBundles,
  runGit,
  tempDir,
} from './changeset-helpers.ts';

afterEach(removeBundles);

describe('swarm-bundle changesets (v1 §12.4, real git)', () => {
  test('open, edit in the workdir, commit ok: the branch moves, the files follow, the changeset closes', async () => {
    const { dir, workdir } = await gitBundle();
    const before = await runGit(dir, 'rev-parse', 'HEAD');
    const opened = await openAndEdit(workdir, 'polite', (text) => text.replace('You build.', 'You build politely.'));
    expect(opened).toMatchObject({ workdir: join('changesets', 'polite'), base: before });
    const result = await commit(workdir, 'polite');
    expect(result).toMatchObject({
      status: 'ok',
      changeset: 'polite',
      previous: before,
      merged: false,
      changed: [{ path: 'goondan.yaml', change: 'modified' }],
    });
    expect(String(result.activation)).toContain('next turn');
    expect(await runGit(dir, 'rev-parse', 'main')).toBe(String(result.revision));
    expect(await readFile(join(dir, 'goondan.yaml'), 'utf8')).toContain('You build politely.');
    expect(await runGit(dir, 'status', '--porcelain')).toBe('');
    expect(await runGit(dir, 'log', '-1', '--format=%an%n%B')).toContain('Goondan-Changeset: polite');
    expect(await runGit(dir, 'log', '-1', '--format=%an')).toBe('goondan agent builder/test');
    const status = (await handlers.status(contextFor(workdir))) as {
      open: unknown[];
      activated: { changeset: string }[];
    };
    expect(status.open).toEqual([]);
    expect(status.activated[0]).toMatchObject({ changeset: 'polite', revision: result.revision });
  });

  test('a broken YAML is rejected with its file:line, nothing is activated, and the changeset stays open to fix', async () => {
    const { dir, workdir } = await gitBundle();
    const before = await runGit(dir, 'rev-parse', 'HEAD');
    await openAndEdit(workdir, 'broken', (text) => text.replace('metadata: { name: main }', 'metadata: { name: main'));
    const result = await commit(workdir, 'broken');
    expect(result).toMatchObject({ status: 'rejected', code: 'E_CHANGESET_REJECTED', outsidePolicy: [] });
    const problems = result.problems as { file: string; line: number; at: string }[];
    expect(problems.length).toBeGreaterThan(0);
    // The unclosed flow map opens on line 11; the parser (like gdn validate) reports it where the map should end.
    expect(problems[0]).toMatchObject({ file: 'goondan.yaml', line: 12, code: 'E_YAML_PARSE' });
    expect(problems[0]!.at).toBe(`${join('changesets', 'broken', 'goondan.yaml')}:12:1`);
    expect(await runGit(dir, 'rev-parse', 'main')).toBe(before);
    expect(await readFile(join(dir, 'goondan.yaml'), 'utf8')).toContain('metadata: { name: main }');
    // Fixed in the same changeset, the second commit goes through.
    await openAndEdit(workdir, 'broken', (text) =>
      text.replace('metadata: { name: main\n', 'metadata: { name: main }\n'),
    );
    expect((await commit(workdir, 'broken')).status).toBe('ok');
  });

  test('a changeset rejected twice, then fixed: one revision is activated, the rejected attempts are not in history', async () => {
    const { dir, workdir } = await gitBundle();
    const before = await runGit(dir, 'rev-parse', 'main');
    await openAndEdit(workdir, 'retry', (text) => text.replace('kind: Model', 'kind: Modle'));
    expect((await commit(workdir, 'retry')).status).toBe('rejected');
    await openAndEdit(workdir, 'retry', () => 'kind: [broken\n');
    expect((await commit(workdir, 'retry')).status).toBe('rejected');
    await openAndEdit(workdir, 'retry', () => bundleYaml('You build politely.'));
    const result = await commit(workdir, 'retry');
    expect(result).toMatchObject({ status: 'ok', previous: before, changed: [{ path: 'goondan.yaml' }] });
    expect(await runGit(dir, 'rev-list', '--count', `${before}..main`)).toBe('1');
    const listed = await listChanges({ repository: await locateBundleRepository(dir) });
    expect(listed.activated.map((change) => change.revision)).toEqual([String(result.revision)]);
    // What a revert of it brings back is the revision before the changeset, not a rejected attempt.
    const reverted = await revertChange({
      repository: await locateBundleRepository(dir),
      revision: String(result.revision),
      parentDir: join(dir, '.goondan', 'changesets'),
      libraries: [baseBundleDir],
    });
    expect(reverted).toMatchObject({ status: 'ok' });
    expect(await readFile(join(dir, 'goondan.yaml'), 'utf8')).toBe(bundleYaml('You build.'));
  });

  test('the changed bundle is validated with the libraries the running bundle was loaded with (ToolContext.bundle)', async () => {
    const { dir, workdir } = await gitBundle();
    const library = await tempDir('gdn-library-');
    await mkdir(join(library, 'tools'));
    await writeFile(join(library, 'tools', 'extra.ts'), 'export const handlers = { run: () => "ran" };\n');
    const tool =
      'apiVersion: goondan.ai/v1\nkind: Tool\nmetadata: { name: extra }\nspec:\n  entry: ./tools/extra.ts\n  exports: [{ name: run }]\n';
    await writeFile(join(library, 'goondan.yaml'), tool);
    const useExtra = (text: string) => text.replace('[Tool/file-system]', '[Tool/file-system, Tool/extra]');
    await openAndEdit(workdir, 'extra', useExtra);
    const running = { rootDir: dir, libraries: [baseBundleDir, library] };
    const ctx = createTestToolContext({
      workdir,
      config: { allowedPaths: ['**'] },
      agentName: 'builder',
      bundle: running,
    });
    const result = (await handlers.commit_changeset(ctx, { changeset: 'extra', message: 'use extra' })) as Output;
    expect(result).toMatchObject({ status: 'ok', changed: [{ path: 'goondan.yaml', change: 'modified' }] });
    expect(await readFile(join(dir, 'goondan.yaml'), 'utf8')).toContain('Tool/extra');
  });

  test('a path outside the allowed globs is rejected and named', async () => {
    const { workdir } = await gitBundle();
    await openAndEdit(workdir, 'sneaky', () => 'export const handlers = {};\n', 'tools/evil.ts');
    const result = await commit(workdir, 'sneaky', { allowedPaths: ['goondan.yaml', 'prompts/**'] });
    expect(result).toMatchObject({ status: 'rejected', outsidePolicy: ['tools/evil.ts'], problems: [] });
  });

  test('a changeset that makes git stop ignoring .goondan/ is rejected; keeping it ignored, the .gitignore change commits', async () => {
    const { dir, workdir } = await gitBundle();
    const before = await runGit(dir, 'rev-parse', 'main');
    await openAndEdit(workdir, 'unignore', () => 'node_modules/\n', '.gitignore');
    const result = await commit(workdir, 'unignore');
    expect(result).toMatchObject({ status: 'rejected', code: 'E_CHANGESET_REJECTED', outsidePolicy: ['.gitignore'] });
    expect(String(result.message)).toContain('makes git stop ignoring .goondan/');
    expect(await runGit(dir, 'rev-parse', 'main')).toBe(before);
    expect(await runGit(dir, 'status', '--porcelain')).toBe('');
    await openAndEdit(workdir, 'unignore', () => 'node_modules/\n.goondan/\n', '.gitignore');
    expect(await commit(workdir, 'unignore')).toMatchObject({ status: 'ok', changed: [{ path: '.gitignore' }] });
  });

  test('a concurrent edit of the same lines is a conflict listing the file, with a recovery hint; the changeset stays open', async () => {
    const { dir, workdir } = await gitBundle();
    await openAndEdit(workdir, 'mine', (text) => text.replace('You build.', 'You build fast.'));
    // Meanwhile a person changes the same line on the active branch.
    await writeFile(join(dir, 'goondan.yaml'), bundleYaml('You build slowly.'));
    await runGit(dir, 'commit', '-q', '-am', 'person edit');
    const active = await runGit(dir, 'rev-parse', 'HEAD');
    const result = await commit(workdir, 'mine');
    expect(result).toMatchObject({ status: 'conflict', code: 'E_CHANGESET_CONFLICT', active, files: ['goondan.yaml'] });
    expect(String(result.message)).toContain('goondan.yaml');
    expect(await runGit(dir, 'rev-parse', 'HEAD')).toBe(active);
    const status = (await handlers.status(contextFor(workdir))) as { open: { changeset: string }[] };
    expect(status.open.map((entry) => entry.changeset)).toEqual(['mine']);
  });

  test('the conflict hint works as written: redone in the same changeset it conflicts again; discarded and reopened it commits', async () => {
    const { dir, workdir } = await gitBundle();
    await openAndEdit(workdir, 'polite', (text) => text.replace('You build.', 'You build politely.'));
    await writeFile(join(dir, 'goondan.yaml'), bundleYaml('You build carefully.'));
    await runGit(dir, 'commit', '-q', '-am', 'person edit');
    const first = await commit(workdir, 'polite');
    expect(first.status).toBe('conflict');
    const suggestion = String(first.suggestion);
    expect(suggestion).toContain("Committing 'polite' again conflicts again");
    expect(suggestion).toContain('swarm-bundle__discard_changeset {"changeset":"polite"}');
    expect(suggestion).toContain('swarm-bundle__open_changeset {"name":"polite"}');
    // What the old hint said: redo the edit on top of the active version in the same changeset.
    await openAndEdit(workdir, 'polite', () => bundleYaml('You build carefully and politely.'));
    expect((await commit(workdir, 'polite')).status).toBe('conflict');
    // What the hint says now.
    await handlers.discard_changeset(contextFor(workdir), { changeset: 'polite' });
    await openAndEdit(workdir, 'polite', (text) =>
      text.replace('You build carefully.', 'You build carefully and politely.'),
    );
    expect(await commit(workdir, 'polite')).toMatchObject({ status: 'ok', merged: false });
    expect(await readFile(join(dir, 'goondan.yaml'), 'utf8')).toContain('You build carefully and politely.');
  });

  test("a person's git reset of the active branch is not undone: a changeset opened before it conflicts, naming what it would bring back", async () => {
    const { dir, workdir } = await gitBundle();
    await writeFile(join(dir, 'leaked.txt'), 'password=hunter2\n');
    await runGit(dir, 'add', 'leaked.txt');
    await runGit(dir, 'commit', '-q', '-m', 'oops, a secret');
    const secret = await runGit(dir, 'rev-parse', 'HEAD');
    await openAndEdit(workdir, 'late', (text) => `${text}more\n`, 'notes.md');
    await runGit(dir, 'reset', '-q', '--hard', 'HEAD~1');
    const active = await runGit(dir, 'rev-parse', 'main');
    const result = await commit(workdir, 'late');
    expect(result).toMatchObject({ status: 'conflict', code: 'E_CHANGESET_CONFLICT', active, files: ['leaked.txt'] });
    expect(String(result.message)).toContain(
      `does not have 1 revision changeset 'late' started from (${secret.slice(0, 12)} "oops, a secret")`,
    );
    expect(String(result.suggestion)).toContain('swarm-bundle__discard_changeset {"changeset":"late"}');
    expect(await runGit(dir, 'rev-parse', 'main')).toBe(active);
    expect(await Bun.file(join(dir, 'leaked.txt')).exists()).toBe(false);
    // The hint works: discarded and opened again, the same edit commits without the dropped revision.
    await handlers.discard_changeset(contextFor(workdir), { changeset: 'late' });
    await openAndEdit(workdir, 'late', (text) => `${text}more\n`, 'notes.md');
    expect(await commit(workdir, 'late')).toMatchObject({ status: 'ok', changed: [{ path: 'notes.md' }] });
    expect(await runGit(dir, 'branch', '--contains', secret)).toBe('');
  });

  test('a person who checks out another branch meanwhile: a changeset opened on main does not merge main into it', async () => {
    const { dir, workdir } = await gitBundle();
    await runGit(dir, 'branch', 'release');
    await writeFile(join(dir, 'draft.md'), 'only on main\n');
    await runGit(dir, 'add', 'draft.md');
    await runGit(dir, 'commit', '-q', '-m', 'draft on main');
    await openAndEdit(workdir, 'fix', (text) => `${text}fix\n`, 'notes.md');
    await runGit(dir, 'switch', '-q', 'release');
    const release = await runGit(dir, 'rev-parse', 'release');
    const result = await commit(workdir, 'fix');
    expect(result).toMatchObject({ status: 'conflict', files: ['draft.md'] });
    expect(String(result.message)).toContain("The active branch release does not have 1 revision changeset 'fix'");
    expect(await runGit(dir, 'rev-parse', 'release')).toBe(release);
    expect(await Bun.file(join(dir, 'draft.md')).exists()).toBe(false);
  });

  test('a commit that discards on failure says so: a conflict then tells how to make the change again', async () => {
    const { dir, workdir } = await gitBundle();
    await openAndEdit(workdir, 'mine', (text) => text.replace('You build.', 'You build fast.'));
    await writeFile(join(dir, 'goondan.yaml'), bundleYaml('You build slowly.'));
    await runGit(dir, 'commit', '-q', '-am', 'person edit');
    const active = await runGit(dir, 'rev-parse', 'HEAD');
    const result = await commitChangeset({
      repository: await locateBundleRepository(dir),
      changeset: 'mine',
      message: 'mine',
      allowedPaths: ['**'],
      libraries: [baseBundleDir],
      afterFailure: { type: 'discard', retry: 'call the tool again' },
    });
    expect(result).toMatchObject({ status: 'conflict', active });
    expect(result.status === 'conflict' && result.suggestion).toBe(
      `The changeset was discarded; nothing was changed. Call the tool again: it starts from the active revision ${active.slice(0, 12)}, which has the other change.`,
    );
    expect(await runGit(dir, 'branch', '--list', 'goondan/*')).toBe('');
  });

  test('a changeset with nothing the active revision lacks makes no revision, not even an empty merge', async () => {
    const { dir, workdir } = await gitBundle();
    await openAndEdit(workdir, 'same', (text) => text);
    await writeFile(join(dir, 'notes.md'), 'notes by a person\n');
    await runGit(dir, 'commit', '-q', '-am', 'person edit');
    const active = await runGit(dir, 'rev-parse', 'HEAD');
    const result = await commit(workdir, 'same');
    expect(result).toMatchObject({ status: 'ok', revision: active, previous: active, merged: false, changed: [] });
    expect(String(result.activation)).toStartWith('Nothing changed');
    expect(await runGit(dir, 'rev-parse', 'HEAD')).toBe(active);
    expect(await runGit(dir, 'branch', '--list', 'goondan/*')).toBe('');
    // Two changesets making the same edit: the second one's merge would change nothing.
    await openAndEdit(workdir, 'a', (text) => text.replace('You build.', 'You build well.'));
    await openAndEdit(workdir, 'b', (text) => text.replace('You build.', 'You build well.'));
    const a = await commit(workdir, 'a');
    expect(await commit(workdir, 'b')).toMatchObject({ status: 'ok', revision: a.revision, changed: [] });
    expect(await runGit(dir, 'rev-parse', 'HEAD')).toBe(String(a.revision));
  });

  test('a bundle in a folder its repository does not track or ignores: refused at open and at list, naming the repository', async () => {
    const repo = await tempDir('gdn-outer-');
    await writeFile(join(repo, 'README.md'), 'outer\n');
    await runGit(repo, 'init', '-q', '-b', 'main');
    await runGit(repo, 'add', '-A');
    await runGit(repo, 'commit', '-q', '-m', 'outer');
    for (const folder of ['untracked', 'ignored']) {
      if (folder === 'ignored') await writeFile(join(repo, '.gitignore'), 'ignored/\n');
      const dir = join(repo, folder, 'bot');
      await mkdir(join(dir, '.goondan', 'workspaces', 'builder', 'default'), { recursive: true });
      await writeFile(join(dir, 'goondan.yaml'), bundleYaml('You build.'));
      const workdir = join(dir, '.goondan', 'workspaces', 'builder', 'default');
      const error = await Promise.resolve(handlers.open_changeset(contextFor(workdir), {})).catch((thrown) => thrown);
      expect(error).toMatchObject({ code: 'E_CHANGESET_FAILED' });
      expect(String(error.message)).toBe(
        `The bundle at ${dir} is not committed in the git repository at ${repo}: branch main has no ${folder}/bot/goondan.yaml${folder === 'ignored' ? ' (git ignores it)' : ''}, so a changeset would not contain it.`,
      );
      expect(String(error.suggestion)).toContain(`git add ${folder}/bot && git commit -m bundle`);
      expect(String(error.suggestion)).toContain(`cd ${dir} && git init`);
      await expect(locateBundleRepository(dir)).rejects.toMatchObject({ code: 'E_CHANGESET_FAILED' });
      expect(await runGit(repo, 'branch', '--list', 'goondan/*')).toBe('');
    }
  });

  test('a changeset name git cannot take is refused saying what is wrong with it', async () => {
    const { workdir } = await gitBundle();
    const refused = async (name: string) =>
      (await Promise.resolve(handlers.open_changeset(contextFor(workdir), { name })).catch((thrown) => thrown)) as {
        code: string;
        message: string;
      };
    expect(await refused('a..b')).toMatchObject({
      code: 'E_TOOL_INVALID_ARGS',
      message: "Changeset name 'a..b' contains '..', which git does not allow in a branch name.",
    });
    expect((await refused('my change')).message).toBe(`Changeset name 'my change' contains " ".`);
    expect((await refused('x.lock')).message).toContain("ends with '.lock'");
    expect((await refused('-x')).message).toBe("Changeset name '-x' starts with '-'.");
  });

  test('a concurrent edit of other files is merged: ok with merged true, both changes active', async () => {
    const { dir, workdir } = await gitBundle();
    await openAndEdit(workdir, 'prompt', (text) => text.replace('You build.', 'You build well.'));
    await writeFile(join(dir, 'notes.md'), 'notes by a person\n');
    await runGit(dir, 'commit', '-q', '-am', 'person edit');
    const result = await commit(workdir, 'prompt');
    expect(result).toMatchObject({ status: 'ok', merged: true });
    expect(await readFile(join(dir, 'goondan.yaml'), 'utf8')).toContain('You build well.');
    expect(await readFile(join(dir, 'notes.md'), 'utf8')).toBe('notes by a person\n');
  });

  test('two agents committing at once cannot both win silently: one is activated, the other conflicts', async () => {
    const { dir, workdir } = await gitBundle();
    const other = join(dir, '.goondan', 'workspaces', 'helper', 'default');
    await mkdir(other, { recursive: true });
    await openAndEdit(workdir, 'a', (text) => text.replace('You build.', 'You build A.'));
    await openAndEdit(other, 'b', (text) => text.replace('You build.', 'You build B.'));
    const results = await Promise.all([commit(workdir, 'a'), commit(other, 'b')]);
    expect(results.map((result) => result.status).sort()).toEqual(['conflict', 'ok']);
    const winner = results.find((result) => result.status === 'ok')!;
    expect(await runGit(dir, 'rev-parse', 'main')).toBe(String(winner.revision));
    expect(await runGit(dir, 'status', '--porcelain')).toBe('');
  });

  test('two agents committing different files at once: both are activated, one after the other, nothing lost', async () => {
    const { dir, workdir } = await gitBundle();
    const other = join(dir, '.goondan', 'workspaces', 'helper', 'default');
    await mkdir(other, { recursive: true });
    await openAndEdit(workdir, 'a', (text) => text.replace('You build.', 'You build A.'));
    await openAndEdit(other, 'b', () => 'notes of B\n', 'notes.md');
    const results = await Promise.all([commit(workdir, 'a'), commit(other, 'b')]);
    expect(results.map((result) => result.status)).toEqual(['ok', 'ok']);
    expect(results.filter((result) => result.merged === true)).toHaveLength(1);
    expect(await readFile(join(dir, 'goondan.yaml'), 'utf8')).toContain('You build A.');
    expect(await readFile(join(dir, 'notes.md'), 'utf8')).toBe('notes of B\n');
  });

  test('uncommitted edits of a person are never overwritten: failed with a hint, the changeset stays open', async () => {
    const { dir, workdir } = await gitBundle();
    const before = await runGit(dir, 'rev-parse', 'HEAD');
    await openAndEdit(workdir, 'mine', (text) => text.replace('You build.', 'You build fast.'));
    await writeFile(join(dir, 'goondan.yaml'), bundleYaml('You build (unsaved edit).'));
    const result = await commit(workdir, 'mine');
    expect(result).toMatchObject({ status: 'failed', code: 'E_CHANGESET_FAILED' });
    expect(String(result.message)).toContain('goondan.yaml');
    expect(String(result.suggestion)).toBe(
      `Commit or stash those edits in ${dir} (git add … && git commit, or git stash), then commit the changeset again; it is still open.`,
    );
    expect(await runGit(dir, 'rev-parse', 'main')).toBe(before);
    expect(await readFile(join(dir, 'goondan.yaml'), 'utf8')).toContain('unsaved edit');
    const status = (await handlers.status(contextFor(workdir))) as { open: { changeset: string }[] };
    expect(status.open.map((entry) => entry.changeset)).toEqual(['mine']);
  });

  test("a person's ignored file at a path the changeset adds (un-ignoring it) is never overwritten: failed naming it", async () => {
    const { dir, workdir } = await gitBundle();
    await writeFile(join(dir, '.gitignore'), '.goondan/\nlocal.yaml\n');
    await runGit(dir, 'commit', '-q', '-am', 'ignore local.yaml');
    const before = await runGit(dir, 'rev-parse', 'HEAD');
    await writeFile(join(dir, 'local.yaml'), 'token: the person keeps this here\n');
    await openAndEdit(workdir, 'unignore', () => '.goondan/\n', '.gitignore');
    await openAndEdit(workdir, 'unignore', () => 'token: agent\n', 'local.yaml');
    const result = await commit(workdir, 'unignore');
    expect(result).toMatchObject({ status: 'failed', code: 'E_CHANGESET_FAILED' });
    expect(String(result.message)).toContain('files git ignores at paths the changeset adds: local.yaml');
    expect(String(result.suggestion)).toContain(`Move the ignored files out of ${dir}`);
    expect(await readFile(join(dir, 'local.yaml'), 'utf8')).toBe('token: the person keeps this here\n');
    expect(await runGit(dir, 'rev-parse', 'main')).toBe(before);
  });

  test("a worktree's .git file pointed at a git directory of the agent's: none of its filters runs, the commit still lands", async () => {
    const { dir, workdir } = await gitBundle();
    const opened = await openAndEdit(workdir, 'hostile', (text) => text.replace('You build.', 'You build politely.'));
    const evil = join(workdir, 'evil');
    const marker = join(workdir, 'FILTER_RAN');
    await runGit(workdir, 'init', '-q', evil);
    await runGit(evil, 'config', 'filter.x.clean', `sh -c "touch ${marker}; cat"`);
    await writeFile(join(workdir, opened.workdir, '.git'), `gitdir: ${join(evil, '.git')}\n`);
    await writeFile(join(workdir, opened.workdir, '.gitattributes'), '* filter=x\n');
    const result = await commit(workdir, 'hostile');
    expect(await Bun.file(marker).exists()).toBe(false);
    expect(result).toMatchObject({ status: 'ok', changed: [{ path: '.gitattributes' }, { path: 'goondan.yaml' }] });
    expect(await runGit(dir, 'branch', '--list', 'goondan/*')).toBe('');
    expect(await runGit(dir, 'worktree', 'list', '--porcelain')).not.toContain('hostile');
  });

  test("a worktree's .git file pointed at the bundle's own repository cannot commit past validation", async () => {
    const { dir, workdir } = await gitBundle();
    const before = await runGit(dir, 'rev-parse', 'main');
    const opened = await openAndEdit(workdir, 'bypass', () => 'kind: [broken\n');
    await writeFile(join(workdir, opened.workdir, '.git'), `gitdir: ${join(dir, '.git')}\n`);
    const result = await commit(workdir, 'bypass');
    expect(result).toMatchObject({ status: 'rejected', code: 'E_CHANGESET_REJECTED' });
    expect(await runGit(dir, 'rev-parse', 'main')).toBe(before);
    expect(await runGit(dir, 'status', '--porcelain')).toBe('');
    expect(await handlers.discard_changeset(contextFor(workdir), { changeset: 'bypass' })).toEqual({
      discarded: 'bypass',
    });
  });

  test('a bundle outside git cannot open a changeset: E_CHANGESET_FAILED says how to make it a repository', async () => {
    const { workdir } = await gitBundle({ git: false });
    const error = await Promise.resolve(handlers.open_changeset(contextFor(workdir), {})).catch((thrown) => thrown);
    expect(error).toBeInstanceOf(GoondanError);
    expect(error).toMatchObject({ code: 'E_CHANGESET_FAILED' });
    expect((error as GoondanError).suggestion).toContain('git init');
  });

  test('discard removes the worktree and the branch; an unknown changeset is E_CHANGESET_NOT_FOUND', async () => {
    const { dir, workdir } = await gitBundle();
    await openAndEdit(workdir, 'gone', (text) => `${text}# scratch\n`);
    expect(await handlers.discard_changeset(contextFor(workdir), { changeset: 'gone' })).toEqual({ discarded: 'gone' });
    expect(await runGit(dir, 'branch', '--list', 'goondan/*')).toBe('');
    const error = await commit(workdir, 'gone').catch((thrown) => thrown);
    expect(error).toMatchObject({ code: 'E_CHANGESET_NOT_FOUND' });
  });

  test('a person reverts an activated revision: a new revision undoes it, validated and activated the same way', async () => {
    const { dir, workdir } = await gitBundle();
    await openAndEdit(workdir, 'polite', (text) => text.replace('You build.', 'You build politely.'));
    const committed = await commit(workdir, 'polite');
    const repository = await locateBundleRepository(dir);
    const reverted = await revertChange({
      repository,
      revision: String(committed.revision),
      parentDir: join(dir, '.goondan', 'changesets'),
      libraries: [baseBundleDir],
    });
    expect(reverted).toMatchObject({ status: 'ok', previous: committed.revision });
    expect(await readFile(join(dir, 'goondan.yaml'), 'utf8')).toContain('You build.');
    const overview = await listChanges({ repository });
    expect(overview.active).toBe(String(reverted.status === 'ok' ? reverted.revision : ''));
    expect(overview.activated.map((change) => change.changeset)).toEqual([
      `revert-${String(committed.revision).slice(0, 12)}`,
      'polite',
    ]);
    expect(reverted.reverted).toBe(String(committed.revision));
  });

  test('a revert that cannot be activated leaves nothing open and says to run it again', async () => {
    const { dir, workdir } = await gitBundle();
    await openAndEdit(workdir, 'polite', (text) => text.replace('You build.', 'You build politely.'));
    const committed = await commit(workdir, 'polite');
    await writeFile(join(dir, 'goondan.yaml'), bundleYaml('You build politely (unsaved edit).'));
    const short = String(committed.revision).slice(0, 12);
    const reverted = await revertChange({
      repository: await locateBundleRepository(dir),
      revision: 'HEAD',
      parentDir: join(dir, '.goondan', 'changesets'),
      libraries: [baseBundleDir],
    });
    expect(reverted).toMatchObject({ status: 'failed', code: 'E_CHANGESET_FAILED', reverted: committed.revision });
    expect(reverted.status === 'failed' && reverted.suggestion).toBe(
      `Commit or stash those edits in ${dir} (git add … && git commit, or git stash), then run gdn changes revert ${short} again. The changeset was discarded; nothing was changed.`,
    );
    expect(await runGit(dir, 'branch', '--list', 'goondan/*')).toBe('');
  });

  test('a revert of a revision the active branch never had (a rejected attempt) is E_CHANGESET_NOT_FOUND; nothing changes', async () => {
    const { dir, workdir } = await gitBundle();
    const before = await runGit(dir, 'rev-parse', 'main');
    await openAndEdit(workdir, 'attempt', (text) => text.replace('kind: Model', 'kind: Modle'));
    expect((await commit(workdir, 'attempt')).status).toBe('rejected');
    const attempt = await runGit(dir, 'rev-parse', 'goondan/changeset/attempt');
    const error = await revertChange({
      repository: await locateBundleRepository(dir),
      revision: attempt,
      parentDir: join(dir, '.goondan', 'changesets'),
      libraries: [baseBundleDir],
    }).catch((thrown) => thrown);
    expect(error).toMatchObject({ code: 'E_CHANGESET_NOT_FOUND' });
    expect(String(error.message)).toContain('is not on the active branch main');
    expect(await runGit(dir, 'rev-parse', 'main')).toBe(before);
    expect(await runGit(dir, 'branch', '--list', 'goondan/changeset/revert-*')).toBe('');
  });

  test("a revert does not take over a changeset an agent opened under the revert's name", async () => {
    const { dir, workdir } = await gitBundle();
    await openAndEdit(workdir, 'polite', (text) => text.replace('You build.', 'You build politely.'));
    const committed = await commit(workdir, 'polite');
    const name = `revert-${String(committed.revision).slice(0, 12)}`;
    await openAndEdit(workdir, name, () => 'smuggled\n', 'notes.md');
    await runGit(join(workdir, 'changesets', name), 'commit', '-qam', 'smuggled');
    const reverted = await revertChange({
      repository: await locateBundleRepository(dir),
      revision: String(committed.revision),
      parentDir: join(dir, '.goondan', 'changesets'),
      libraries: [baseBundleDir],
    });
    expect(reverted).toMatchObject({ status: 'ok', changed: [{ path: 'goondan.yaml', change: 'modified' }] });
    expect(await readFile(join(dir, 'notes.md'), 'utf8')).toBe('notes\n');
    expect(await runGit(dir, 'branch', '--list', 'goondan/*')).toBe('');
  });

  test('reverting a revision that changed nothing (an empty merge) makes no revision', async () => {
    const { dir } = await gitBundle();
    await runGit(dir, 'switch', '-q', '-c', 'side');
    await runGit(dir, 'commit', '-q', '--allow-empty', '-m', 'nothing');
    await runGit(dir, 'switch', '-q', 'main');
    await runGit(dir, 'merge', '-q', '--no-ff', '-m', 'merge nothing', 'side');
    const merge = await runGit(dir, 'rev-parse', 'HEAD');
    const reverted = await revertChange({
      repository: await locateBundleRepository(dir),
      revision: 'HEAD',
      parentDir: join(dir, '.goondan', 'changesets'),
      libraries: [baseBundleDir],
    });
    expect(reverted).toMatchObject({ status: 'ok', revision: merge, previous: merge, changed: [], reverted: merge });
    expect(await runGit(dir, 'rev-parse', 'HEAD')).toBe(merge);
    expect(await runGit(dir, 'branch', '--list', 'goondan/*')).toBe('');
  });
});
