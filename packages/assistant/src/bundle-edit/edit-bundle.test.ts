import { afterEach, describe, expect, test } from 'bun:test';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { baseBundleDir } from '@goondan/base';
import { createTestToolContext } from '@goondan/core/testing';
import { git } from '../../test/git-bundle.ts';
import { handlers as agent } from '../../tools/agent/index.ts';
import { handlers as settings } from '../../tools/settings/index.ts';
import { assistantBundleDir } from '../assistant-bundle-dir.ts';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** examples/assistant (folded prompts, flow maps over several lines, `[To Do, Doing, Done]`, comments) in CRLF. */
const example = async () =>
  (await readFile(join(import.meta.dir, '../../../../examples/assistant/goondan.yaml'), 'utf8')).replace(/\n/g, '\r\n');

/** The bundle committed in a fresh repository at `<repo>/<folder>` (the top when ''), and its agent's context. */
async function committedBundle(options: { folder?: string; commit?: boolean; ignore?: string } = {}) {
  const repo = await realpath(await mkdtemp(join(tmpdir(), 'gdn-edit-bundle-')));
  dirs.push(repo);
  const dir = join(repo, options.folder ?? '');
  await mkdir(dir, { recursive: true });
  const text = await example();
  await writeFile(join(dir, 'goondan.yaml'), text);
  await writeFile(join(repo, '.gitignore'), `.goondan/\n${options.ignore ?? ''}`);
  await writeFile(join(repo, 'README.md'), 'a larger repository\n');
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', options.commit === false ? 'README.md' : '-A');
  await git(repo, 'commit', '-q', '-m', 'start');
  const workdir = join(dir, '.goondan', 'workspaces', 'assistant', 'default');
  await mkdir(workdir, { recursive: true });
  const ctx = createTestToolContext({
    workdir,
    agentName: 'assistant',
    bundle: { rootDir: dir, libraries: [baseBundleDir, assistantBundleDir] },
  });
  return { repo, dir, ctx, text, yaml: () => readFile(join(dir, 'goondan.yaml'), 'utf8') };
}

type Out = Record<string, unknown>;

describe('self-edits write back only what they change', () => {
  test('persona_update keeps every other byte of goondan.yaml: folded text, flow maps and lists, comments, CRLF', async () => {
    const { ctx, text, yaml } = await committedBundle();
    const result = (await agent.persona_update(ctx, { mode: 'append', content: 'Be terse.' })) as Out;
    expect(result).toMatchObject({ status: 'ok', changed: [{ path: 'goondan.yaml', change: 'modified' }] });
    const folded = [
      '    system: >-',
      "      You are a personal assistant. Keep the user's errands on the kanban board named Errands, remember lasting",
      '      preferences with memory__save, and check the date with datetime__now before talking about days.',
    ].join('\r\n');
    expect(text).toContain(folded);
    const literal = [
      '    system: |',
      "      You are a personal assistant. Keep the user's errands on the kanban board named Errands, remember lasting preferences with memory__save, and check the date with datetime__now before talking about days.",
      '      Be terse.',
    ].join('\r\n');
    expect(await yaml()).toBe(text.replace(folded, literal));
  });

  test('settings__set adds its label and nothing else', async () => {
    const { ctx, text, yaml } = await committedBundle();
    expect(await settings.set(ctx, { key: 'verbosity', value: 'low' })).toMatchObject({ status: 'ok' });
    const name = '  name: assistant\r\n';
    expect(await yaml()).toBe(
      text.replace(name, `${name}  labels:\r\n    settings.assistant.goondan.ai/verbosity: low\r\n`),
    );
  });

  test('a change the bundle already has makes no revision and says so', async () => {
    const { repo, ctx, yaml } = await committedBundle();
    expect(await settings.set(ctx, { key: 'verbosity', value: 'low' })).toMatchObject({ status: 'ok' });
    const [before, text] = [await git(repo, 'rev-parse', 'HEAD'), await yaml()];
    const result = (await settings.set(ctx, { key: 'verbosity', value: 'low' })) as Out;
    expect(result).toMatchObject({ status: 'ok', revision: before, previous: before, changed: [] });
    expect(String(result.activation)).toStartWith('Nothing changed');
    expect(await git(repo, 'rev-parse', 'HEAD')).toBe(before);
    expect(await yaml()).toBe(text);
    expect(await git(repo, 'branch', '--list', 'goondan/changeset/*')).toBe('');
  });
});

describe('what a failed self-edit says is left', () => {
  test('uncommitted hand edits: failed, the changeset is gone and the hint says to call the tool again', async () => {
    const { repo, ctx, text, yaml } = await committedBundle();
    const handEdited = `${text}# a note by hand\r\n`;
    await writeFile(join(repo, 'goondan.yaml'), handEdited);
    for (const call of [
      () => agent.persona_update(ctx, { mode: 'append', content: 'Be terse.' }),
      () => settings.set(ctx, { key: 'verbosity', value: 'low' }),
    ]) {
      const result = (await call()) as Out;
      expect(result).toMatchObject({ status: 'failed', code: 'E_CHANGESET_FAILED' });
      expect(String(result.suggestion)).toContain('then call the tool again');
      expect(String(result.suggestion)).toContain('The changeset was discarded; nothing was changed.');
      expect(String(result.suggestion)).not.toContain('still open');
      expect(await git(repo, 'branch', '--list', 'goondan/changeset/*')).toBe('');
      expect(await git(repo, 'worktree', 'list', '--porcelain')).not.toContain('changesets');
    }
    expect(await yaml()).toBe(handEdited);
  });

  test('a bundle in a folder its repository does not track is refused at the first call, naming the repository', async () => {
    for (const options of [
      { folder: 'bots/home', commit: false },
      { folder: 'bots/home', ignore: 'bots/\n' },
    ]) {
      const { repo, ctx } = await committedBundle(options);
      const error = await Promise.resolve(agent.persona_update(ctx, { mode: 'append', content: 'x' })).catch(
        (thrown) => thrown,
      );
      expect(error).toMatchObject({ code: 'E_CHANGESET_FAILED' });
      expect(String(error.message)).toContain(`is not committed in the git repository at ${repo}`);
      expect(String(error.suggestion)).toContain('git add bots/home');
      if (options.ignore) expect(String(error.suggestion)).toContain('.gitignore that ignores it');
      expect(await git(repo, 'branch', '--list', 'goondan/changeset/*')).toBe('');
    }
  });
});
