import { afterAll, expect, test } from 'bun:test';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cleanupTempDirs, gdn, makeTempDir } from './helpers.ts';

afterAll(cleanupTempDirs);

// gdn init writes goondan.yaml, which marks a folder as a bundle, last: when another file cannot be written (here a
// file named `tools` stands where the folder tools/greet should be) it fails with E_PATH_ACCESS, suggesting to move
// the file, and leaves no goondan.yaml, so the retry is not refused as "already holds a bundle".
test('an init that fails part-way leaves no goondan.yaml behind, so the suggested retry works', async () => {
  const dir = await makeTempDir();
  await writeFile(join(dir, 'tools'), 'not a folder\n');
  const failed = await gdn(['init', dir]);
  expect(failed.exitCode).toBe(1);
  expect(failed.stderr).toContain('E_PATH_ACCESS');
  expect(await Bun.file(join(dir, 'goondan.yaml')).exists()).toBe(false);

  await rm(join(dir, 'tools'));
  const retried = await gdn(['init', dir]);
  expect(retried.stderr).not.toContain('already holds a bundle');
  expect(retried.exitCode).toBe(0);
});
