import { expect, test } from 'bun:test';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GoondanError } from '@goondan/core/errors';
import { locateBundleRepository } from './locate-bundle-repository.ts';

test.each([
  ['a plain path', 'gdn-locate-'],
  ['a path with a space and a quote (it is quoted in the command)', "gdn-locate it's here-"],
])(
  'the command that makes a bundle a repository keeps the .gitignore it already has (gdn init writes one): %s',
  async (_, prefix) => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
    try {
      await writeFile(join(dir, 'goondan.yaml'), 'apiVersion: goondan.ai/v1\n');
      await writeFile(join(dir, '.gitignore'), 'node_modules/\n');
      const thrown = await locateBundleRepository(dir).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(thrown).toBeInstanceOf(GoondanError);
      const suggestion = (thrown as GoondanError).suggestion ?? '';
      expect(suggestion).toStartWith('Make it one: ');
      const env = {
        ...process.env,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@example.test',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@example.test',
        GIT_CONFIG_NOSYSTEM: '1',
        HOME: dir,
      };
      const run = Bun.spawnSync(['sh', '-c', suggestion.slice('Make it one: '.length)], { env, stderr: 'pipe' });
      expect(run.exitCode).toBe(0);
      expect((await readFile(join(dir, '.gitignore'), 'utf8')).split('\n')).toEqual(['node_modules/', '.goondan/', '']);
      expect((await locateBundleRepository(dir)).repoRoot).toBe(dir);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
);
