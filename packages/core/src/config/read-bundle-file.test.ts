// A goondan.yaml that is not UTF-8 is one E_YAML_PARSE problem at its first such byte, never text with U+FFFD in
// it: through the library cache (the CLI's path) and without it.
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBundle } from './load-bundle.ts';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function bundleWith(bytes: Uint8Array): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gdn-utf8-'));
  dirs.push(dir);
  await writeFile(join(dir, 'goondan.yaml'), bytes);
  return dir;
}

const model =
  'apiVersion: goondan.ai/v1\nkind: Model\nmetadata: { name: m }\nspec: { provider: scripted, model: x, script: [] }\n';

describe('a goondan.yaml that is not UTF-8', () => {
  for (const [label, cache] of [
    ['through the library cache', join(tmpdir(), `gdn-utf8-cache-${process.pid}`)],
    ['without it', null],
  ] as const) {
    test(`a Latin-1 byte is E_YAML_PARSE at its line and column (${label})`, async () => {
      if (cache) dirs.push(cache);
      const bytes = Buffer.concat([Buffer.from(`${model}# 한 caf`), Buffer.from([0xe9]), Buffer.from('\n')]);
      const { bundle, problems } = await loadBundle({ dir: await bundleWith(bytes), libraryCacheDir: cache });
      expect(bundle).toBeNull();
      expect(problems.map(({ code, file, line, column }) => ({ code, file, line, column }))).toEqual([
        { code: 'E_YAML_PARSE', file: 'goondan.yaml', line: 5, column: 8 },
      ]);
      expect(problems[0]?.message).toContain('byte 0xE9');
      expect(problems[0]?.suggestion).toContain('UTF-8');
    });
  }

  test('a UTF-16 file is named as such', async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(model, 'utf16le')]);
    const { problems } = await loadBundle({ dir: await bundleWith(utf16), libraryCacheDir: null });
    expect(problems.map((problem) => [problem.code, problem.line, problem.column])).toEqual([['E_YAML_PARSE', 1, 1]]);
    expect(problems[0]?.message).toContain('UTF-16');
  });
});
