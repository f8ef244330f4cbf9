import { describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { copyFixture, gdn, repoRoot } from './helpers.ts';

describe('a flag given twice', () => {
  test('gdn run --instance a --instance b exits 2 naming the flag and both values, and runs nothing', async () => {
    const bundle = await copyFixture('agent');
    const result = await gdn(['run', '--bundle', bundle, '--instance', 'a', '--instance', 'b', '--input', 'hi']);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([
      'gdn run: --instance was given twice (a, b); give it once',
      "Run 'gdn run --help' for usage.",
      '  code: E_CLI_USAGE',
      expect.stringMatching(/^ {2}help: https:\/\/\S+\/docs\/errors\/E_CLI_USAGE\.md$/),
    ]);
    // Neither instance was opened.
    expect(existsSync(join(bundle, '.goondan'))).toBe(false);
  });

  test('gdn serve --port 1 --port 2 is refused before anything listens; with --json the failure is one JSON document', async () => {
    const serve = await gdn(['serve', '--bundle', join(repoRoot, 'examples/hello'), '--port', '1', '--port=2']);
    expect(serve.exitCode).toBe(2);
    expect(serve.stderr).toStartWith('gdn serve: --port was given twice (1, 2); give it once\n');
    const trace = await gdn(['trace', '--json', '--limit', '1', '--limit', '2']);
    expect(trace.exitCode).toBe(2);
    expect(JSON.parse(trace.stdout)).toMatchObject({
      status: 'error',
      error: { code: 'E_CLI_USAGE', message: '--limit was given twice (1, 2); give it once' },
    });
  });

  test('a boolean flag given twice is accepted', async () => {
    const result = await gdn(['validate', '--json', '--json', '--bundle', join(repoRoot, 'examples/hello')]);
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ valid: true });
  });
});
