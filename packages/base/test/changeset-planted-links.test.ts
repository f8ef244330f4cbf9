// A misbehaving agent plants symbolic links in its workdir, where changesets are checked out: the person's files
// they point at are never deleted, written or read through them (real git).
import { afterEach, describe, expect, test } from 'bun:test';
import { mkdir, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { handlers } from '../tools/swarm-bundle/index.ts';
import {
  bundleYaml,
  commit,
  contextFor,
  gitBundle,
  openAndEdit,
  removeBundles,
  runGit,
  tempDir,
} from './changeset-helpers.ts';

afterEach(removeBundles);

/** A person's folder outside the bundle with a file in `sub/`: what a planted link points at. */
async function personsFolder(sub: string) {
  const dir = await tempDir('gdn-persons-');
  await mkdir(join(dir, sub));
  await writeFile(join(dir, sub, 'thesis.txt'), 'precious\n');
  return dir;
}

describe('symbolic links planted in the workdir of changesets', () => {
  test("discard after changesets/ was swapped for a link to a person's folder: the folder is kept, the changeset goes", async () => {
    const { dir, workdir } = await gitBundle();
    const person = await personsFolder('Documents');
    await openAndEdit(workdir, 'Documents', (text) => `${text}# scratch\n`);
    await rm(join(workdir, 'changesets'), { recursive: true });
    await symlink(person, join(workdir, 'changesets'));
    expect(await handlers.discard_changeset(contextFor(workdir), { changeset: 'Documents' })).toEqual({
      discarded: 'Documents',
    });
    expect(await readFile(join(person, 'Documents', 'thesis.txt'), 'utf8')).toBe('precious\n');
    expect(await runGit(dir, 'branch', '--list', 'goondan/*')).toBe('');
    expect(await runGit(dir, 'worktree', 'list', '--porcelain')).not.toContain('Documents');
  });

  test('a commit through a worktree that a link now leads elsewhere reads nothing there; put back, it commits', async () => {
    const { dir, workdir } = await gitBundle();
    const person = await personsFolder('polite');
    const before = await runGit(dir, 'rev-parse', 'main');
    await openAndEdit(workdir, 'polite', (text) => text.replace('You build.', 'You build politely.'));
    await rename(join(workdir, 'changesets'), join(workdir, 'moved'));
    await symlink(person, join(workdir, 'changesets'));
    const refused = await commit(workdir, 'polite');
    expect(refused).toMatchObject({ status: 'failed', code: 'E_CHANGESET_FAILED' });
    expect(String(refused.message)).toContain(`leads to ${join(person, 'polite')}`);
    expect(String(refused.suggestion)).toContain('Remove the symbolic link');
    expect(await runGit(dir, 'rev-parse', 'main')).toBe(before);
    expect(await runGit(dir, 'log', '--format=%H', 'goondan/changeset/polite')).toBe(before);
    await rm(join(workdir, 'changesets'));
    await rename(join(workdir, 'moved'), join(workdir, 'changesets'));
    expect(await commit(workdir, 'polite')).toMatchObject({ status: 'ok', changed: [{ path: 'goondan.yaml' }] });
    expect(await readFile(join(person, 'polite', 'thesis.txt'), 'utf8')).toBe('precious\n');
  });

  test('open with changesets/ planted as a link: refused, nothing is checked out where it points', async () => {
    const { dir, workdir } = await gitBundle();
    const elsewhere = await tempDir('gdn-elsewhere-');
    await symlink(elsewhere, join(workdir, 'changesets'));
    const error = await Promise.resolve(handlers.open_changeset(contextFor(workdir), { name: 'out' })).catch(
      (thrown) => thrown,
    );
    expect(error).toMatchObject({ code: 'E_CHANGESET_FAILED' });
    expect(String(error.message)).toContain(`leads to ${elsewhere}`);
    expect(await readdir(elsewhere)).toEqual([]);
    expect(await runGit(dir, 'branch', '--list', 'goondan/*')).toBe('');
  });

  test('links a changeset adds that lead out of the bundle are rejected and named; nothing is activated', async () => {
    const { dir, workdir } = await gitBundle();
    const before = await runGit(dir, 'rev-parse', 'main');
    const outside = join(await tempDir('gdn-outside-'), 'goondan.yaml');
    await writeFile(outside, bundleYaml('You obey the file outside.'));
    const opened = await openAndEdit(workdir, 'links', (text) => text);
    const tree = join(workdir, opened.workdir);
    await rm(join(tree, 'goondan.yaml'));
    await symlink(outside, join(tree, 'goondan.yaml'));
    await symlink('../../../../../../.git/config', join(tree, 'climbs'));
    await symlink('.git', join(tree, 'git-dir'));
    await symlink('notes.md', join(tree, 'inside'));
    const result = await commit(workdir, 'links');
    expect(result).toMatchObject({
      status: 'rejected',
      code: 'E_CHANGESET_REJECTED',
      problems: [],
      outsidePolicy: ['climbs', 'git-dir', 'goondan.yaml'],
    });
    expect(String(result.message)).toContain(`goondan.yaml -> ${outside}`);
    expect(String(result.suggestion)).toContain('Replace each link with the file itself');
    expect(await runGit(dir, 'rev-parse', 'main')).toBe(before);
    await rm(join(tree, 'goondan.yaml'));
    await writeFile(join(tree, 'goondan.yaml'), bundleYaml('You build.'));
    await rm(join(tree, 'climbs'));
    await rm(join(tree, 'git-dir'));
    expect(await commit(workdir, 'links')).toMatchObject({
      status: 'ok',
      changed: [{ path: 'inside', change: 'added' }],
    });
  });
});
