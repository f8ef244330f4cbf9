// Tools with thousands of exports, checked by the real `gdn validate`: every export's handler is found (the
// entry probe once listed only the first 1000 names), and a problem quotes a few names, not the whole module.
import { afterAll, expect, test } from 'bun:test';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cleanupTempDirs, gdn, makeTempDir } from './helpers.ts';

afterAll(cleanupTempDirs);

/** A bundle with one Tool declaring `exports` and a module whose handlers has a function for each of `handlers`. */
async function bundle(options: { exports: string[]; handlers: string }): Promise<string> {
  const dir = await makeTempDir('gdn-many-exports-');
  const lines = options.exports.map((name) => `    - { name: ${name}, description: d }`);
  const yaml = [
    'apiVersion: goondan.ai/v1',
    'kind: Tool',
    'metadata: { name: many }',
    'spec:',
    '  entry: ./tools/many.ts',
    '  exports:',
    ...lines,
    '',
  ];
  await writeFile(join(dir, 'goondan.yaml'), yaml.join('\n'));
  await mkdir(join(dir, 'tools'));
  await writeFile(
    join(dir, 'tools', 'many.ts'),
    `export const handlers = Object.fromEntries(${options.handlers}.map((name) => [name, () => name]));\n`,
  );
  return dir;
}

const names = (prefix: string, count: number) => Array.from({ length: count }, (_, index) => `${prefix}${index}`);
/** The source of an array of `count` names from `prefix` + `from` on. */
const namesCode = (prefix: string, count: number, from = 0) =>
  `Array.from({ length: ${count} }, (_, i) => '${prefix}' + (i + ${from}))`;

test('a Tool with 1001 exports validates: the handler of the 1001st is found', async () => {
  const dir = await bundle({ exports: names('t', 1001), handlers: namesCode('t', 1001) });
  const result = await gdn(['validate', dir]);
  expect(result.stderr).toBe('');
  expect(result.exitCode).toBe(0);
});

test('a missing handler quotes the closest names and counts the rest, in every problem', async () => {
  const dir = await bundle({ exports: [...names('t', 30), 'zzz'], handlers: namesCode('t', 5000, 25) });
  const result = await gdn(['validate', dir, '--json']);
  expect(result.exitCode).toBe(1);
  const problems = (JSON.parse(result.stdout) as { errors: { code: string; message: string }[] }).errors;
  // t0..t24 are missing (the handlers are t25..t5024), and so is zzz.
  expect(problems.map((problem) => problem.code)).toEqual(Array(26).fill('E_TOOL_HANDLER_MISSING'));
  expect(problems[0]!.message).toMatch(
    /no handler function for export "t0" .*; handlers has: .+ \(the closest\) and 499\d more$/,
  );
  expect(problems.at(-1)!.message).toEndWith('handlers has: t25, t26, t27 and 4997 more');
  for (const problem of problems) expect(problem.message.length).toBeLessThan(200);
});

test('a handlers object with more names than gdn reads is its own problem, not a missing handler', async () => {
  const dir = await bundle({ exports: ['t0'], handlers: namesCode('t', 100_001) });
  const result = await gdn(['validate', dir]);
  expect(result.exitCode).toBe(1);
  expect(result.stderr).toContain(
    'E_TOOL_HANDLER_MISSING  "./tools/many.ts": its handlers object has more than 100000 names, more than gdn reads',
  );
  expect(result.stderr).toContain('suggestion: Split the Tool into Tools of fewer exports: gdn reads at most 100000');
  expect(result.stderr.length).toBeLessThan(2000);
});
