import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadBundleResult } from './load-bundle.ts';
import { loadBundle } from './load-bundle.ts';
import type { BundleProblem } from './resources.ts';

const brief = (problem: BundleProblem) => [problem.code, problem.line, problem.column, problem.path];

describe('resource shapes on __fixtures__/bad-shape', () => {
  let result: LoadBundleResult;
  const byPath = (path: string) => result.problems.find((problem) => problem.path === path);
  beforeAll(async () => {
    result = await loadBundle({ dir: join(import.meta.dir, '__fixtures__', 'bad-shape') });
  });

  test('reports one problem per wrong field, each at its YAML node', () => {
    expect(result.bundle).toBeNull();
    expect(result.problems.map(brief)).toEqual([
      ['E_TOOL_ENTRY_MISSING', 5, 1, 'spec.entry'],
      ['E_RESOURCE_INVALID', 6, 3, 'spec.entyr'],
      ['E_RESOURCE_INVALID', 7, 22, 'spec.errorMessageLimit'],
      ['E_RESOURCE_INVALID', 8, 14, 'spec.timeoutMs'],
      ['E_RESOURCE_INVALID', 9, 12, 'spec.exports'],
      ['E_TOOL_ENTRY_NOT_FOUND', 16, 10, 'spec.entry'],
      ['E_RESOURCE_INVALID', 19, 7, 'spec.exports[0].parameter'],
      ['E_RESOURCE_INVALID', 20, 19, 'spec.exports[0].parameters'],
      ['E_RESOURCE_INVALID', 21, 20, 'spec.exports[0].description'],
      ['E_RESOURCE_INVALID', 28, 13, 'spec.provider'],
      ['E_RESOURCE_INVALID', 30, 3, 'spec.apiKey'],
      ['E_RESOURCE_INVALID', 39, 11, 'metadata.labels.tier'],
      ['E_RESOURCE_INVALID', 42, 22, 'spec.policy.maxStepsPerTurn'],
      ['E_RESOURCE_INVALID', 49, 1, 'spec.entryAgent'],
      ['E_RESOURCE_INVALID', 50, 11, 'spec.agents'],
      ['E_RESOURCE_INVALID', 51, 1, 'specs'],
    ]);
  });

  test('a string where exports must be a list is E_RESOURCE_INVALID (exports: "x")', () => {
    expect(byPath('spec.exports')?.message).toBe('spec.exports must be array (got string "x")');
  });

  test('a word where errorMessageLimit must be an integer is E_RESOURCE_INVALID (errorMessageLimit: big)', () => {
    expect(byPath('spec.errorMessageLimit')?.message).toBe('spec.errorMessageLimit must be integer (got string "big")');
  });

  test('an unknown Tool spec field is refused, at its key, with the likely intended name', () => {
    expect(byPath('spec.entyr')?.message).toBe('spec has unknown field "entyr"');
    expect(byPath('spec.entyr')?.suggestion).toStartWith('Did you mean "entry"?');
    expect(byPath('spec.exports[0].parameter')?.suggestion).toStartWith('Did you mean "parameters"?');
  });

  test('an enum value out of range lists the allowed values', () => {
    expect(byPath('spec.provider')?.message).toContain('openai, anthropic, google, openai-compatible, scripted');
  });

  test('a ValueSource must have exactly one of value or valueFrom', () => {
    expect(byPath('spec.apiKey')?.message).toBe('spec.apiKey must have exactly one of value or valueFrom');
  });

  test('a missing required field points at its parent and names the field', () => {
    expect(byPath('spec.entryAgent')?.message).toBe('spec is missing required field "entryAgent"');
  });

  test('unknown fields are accepted in Agent specs (other runtimes) but not at the top of a document', () => {
    expect(result.problems.some((problem) => problem.path.includes('custom-field'))).toBe(false);
    expect(byPath('specs')?.message).toBe('The document has unknown field "specs"');
  });
});

describe('values YAML writes that JSON has no word for, and merge keys', () => {
  const dir = mkdtempSync(join(tmpdir(), 'goondan-shape-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('an infinite timeoutMs says "number Infinity", not "null"; a merge key says merge keys are not read', async () => {
    writeFileSync(join(dir, 'tool.ts'), 'export const handlers = { run: () => 1 };\n');
    writeFileSync(
      join(dir, 'goondan.yaml'),
      `apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: slow }
spec:
  entry: ./tool.ts
  timeoutMs: .inf
  exports: [{ name: run }]
---
apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: merged }
spec:
  <<: { entry: ./tool.ts }
  exports: [{ name: run }]
`,
    );
    const { problems } = await loadBundle({ dir });
    const timeout = problems.find((problem) => problem.path === 'spec.timeoutMs');
    expect(timeout?.message).toBe('spec.timeoutMs must be integer (got number Infinity)');
    const merge = problems.find((problem) => problem.path === 'spec["<<"]');
    expect(merge?.suggestion).toStartWith('YAML merge keys (<<: *anchor) are not supported');
  });
});
