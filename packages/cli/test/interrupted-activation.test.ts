// A changeset activation killed between moving the branch and updating the files (docs/changesets.md#an-interrupted-
// activation) is finished by the next gdn command that loads the bundle, before its agents run the revision before.
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, symlinkSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { commit, gitBundle, openAndEdit, removeBundles, runGit } from '../../base/test/changeset-helpers.ts';
import { gdn } from './helpers.ts';

afterAll(removeBundles);

describe('an interrupted activation at the start of a command', () => {
  test('gdn validate (and so run, chat, serve) finishes it first and says so; without a lock nothing is run', async () => {
    const { dir, workdir } = await gitBundle();
    const before = await runGit(dir, 'rev-parse', 'HEAD');
    await openAndEdit(workdir, 'polite', (text) => text.replace('You build.', 'You build politely.'));
    const activated = String((await commit(workdir, 'polite')).revision);
    // What a kill between `update-ref` and `read-tree` leaves: the files at the revision before, the lock of a
    // process that is gone.
    await runGit(dir, 'read-tree', '-m', '-u', activated, before);
    const dead = Bun.spawn(['true']);
    await dead.exited;
    symlinkSync(`${dead.pid} ${hostname()} killed`, join(dir, '.git', 'goondan-activate.lock'));
    expect(await readFile(join(dir, 'goondan.yaml'), 'utf8')).toContain('You build.');

    const result = await gdn(['validate', '--bundle', dir]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain('[goondan] finished an interrupted activation');
    expect(await readFile(join(dir, 'goondan.yaml'), 'utf8')).toContain('You build politely.');
    expect(await runGit(dir, 'status', '--porcelain')).toBe('');
    expect(existsSync(join(dir, '.git', 'goondan-activate.lock'))).toBe(false);

    const again = await gdn(['validate', '--bundle', dir]);
    expect(again.stderr).not.toContain('interrupted activation');
  });
});
