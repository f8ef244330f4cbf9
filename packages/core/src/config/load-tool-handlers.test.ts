import { beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { createTestToolContext } from '../testing.ts';
import type { LoadBundleResult } from './load-bundle.ts';
import { loadBundle } from './load-bundle.ts';
import type { BundleProblem } from './resources.ts';

const fixture = (name: string) => join(import.meta.dir, '__fixtures__', name);
const brief = (problem: BundleProblem) => [problem.code, problem.file, problem.line, problem.column, problem.path];

describe('Tool entry modules on __fixtures__/bad-entry', () => {
  let result: LoadBundleResult;
  const problemOn = (line: number) => result.problems.find((problem) => problem.line === line);
  beforeAll(async () => {
    result = await loadBundle({ dir: fixture('bad-entry') });
  });

  test('reports every entry problem and loads nothing', () => {
    expect(result.bundle).toBeNull();
    expect(result.handlers.size).toBe(0);
    expect(result.problems.map(brief)).toEqual([
      ['E_TOOL_ENTRY_NOT_FOUND', 'goondan.yaml', 6, 10, 'spec.entry'],
      ['E_TOOL_HANDLERS_MISSING', 'goondan.yaml', 24, 10, 'spec.entry'],
      ['E_TOOL_HANDLER_MISSING', 'goondan.yaml', 36, 13, 'spec.exports[1].name'],
      ['E_TOOL_HANDLER_MISSING', 'goondan.yaml', 37, 13, 'spec.exports[2].name'],
      ['E_TOOL_ENTRY_NOT_FOUND', 'goondan.yaml', 44, 10, 'spec.entry'],
      // Where the module threw, so the code frame shows that line; the message names the declaration.
      ['E_TOOL_ENTRY_LOAD', 'tools/throws.ts', 3, 11, 'spec.entry'],
    ]);
  });

  test('spec §15: an entry file that does not exist is E_TOOL_ENTRY_NOT_FOUND, resolved beside the YAML file', () => {
    expect(problemOn(6)?.message).toContain(join(fixture('bad-entry'), 'tools', 'nope.ts'));
  });

  test('spec §15: an entry that is a directory is E_TOOL_ENTRY_NOT_FOUND', () => {
    expect(problemOn(44)?.message).toContain('is not a file');
  });

  test('an entry module that throws on import is E_TOOL_ENTRY_LOAD with the thrown message and the declaration', () => {
    const problem = result.problems.find((each) => each.code === 'E_TOOL_ENTRY_LOAD');
    expect(problem?.message).toContain('boom while importing');
    expect(problem?.message).toContain("Tool 'throws' (goondan.yaml:15:10)");
  });

  test('spec §4.3: an entry without a handlers export is E_TOOL_HANDLERS_MISSING, listing its exports', () => {
    expect(problemOn(24)?.message).toContain('its exports: handler');
  });

  test('spec §15: an export with no handler function is E_TOOL_HANDLER_MISSING, inherited properties do not count', () => {
    expect(problemOn(36)?.message).toContain('"walk"');
    expect(problemOn(37)?.message).toContain('"constructor"');
  });
});

describe('loaded handlers', () => {
  test('are callable, keyed by Tool/name, and limited to the declared exports', async () => {
    const { handlers } = await loadBundle({ dir: fixture('good') });
    const greet = handlers.get('Tool/greet');
    const calc = handlers.get('Tool/calc');
    const ctx = createTestToolContext({ workdir: import.meta.dir });
    expect(Object.keys(greet ?? {})).toEqual(['hello', 'bye']);
    expect(await greet?.hello?.(ctx, { name: 'Ada' })).toEqual({ greeting: 'Hello, Ada!' });
    expect(await calc?.add?.(ctx, { a: 1, b: 2 })).toBe(3);
    expect(Object.keys(calc ?? {})).toEqual(['add']);
  });
});
