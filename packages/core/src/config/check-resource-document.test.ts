import { beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import type { LoadBundleResult } from './load-bundle.ts';
import { loadBundle } from './load-bundle.ts';
import type { BundleProblem } from './resources.ts';

const brief = (problem: BundleProblem) => [problem.code, problem.line, problem.column, problem.path];

describe('document envelope on __fixtures__/bad-envelope', () => {
  let result: LoadBundleResult;
  const byCode = (code: string) => result.problems.filter((problem) => problem.code === code);
  beforeAll(async () => {
    result = await loadBundle({ dir: join(import.meta.dir, '__fixtures__', 'bad-envelope') });
  });

  test('reports each envelope problem at its field', () => {
    expect(result.bundle).toBeNull();
    expect(result.problems.map(brief)).toEqual([
      ['E_RESOURCE_API_VERSION', 1, 13, 'apiVersion'],
      ['E_TOOL_ENTRY_NOT_FOUND', 6, 10, 'spec.entry'],
      ['E_RESOURCE_KIND_UNKNOWN', 10, 7, 'kind'],
      ['E_NAME_INVALID', 17, 1, 'metadata.name'],
      ['E_RESOURCE_INVALID', 23, 1, ''],
      ['E_NAME_INVALID', 29, 9, 'metadata.name'],
    ]);
  });

  test('an apiVersion other than goondan.ai/v1 is E_RESOURCE_API_VERSION', () => {
    expect(byCode('E_RESOURCE_API_VERSION')[0]?.message).toContain('"goondan.ai/v2"');
  });

  test('an unknown kind is E_RESOURCE_KIND_UNKNOWN, listing the kinds and guessing the intended one', () => {
    const [problem] = byCode('E_RESOURCE_KIND_UNKNOWN');
    expect(problem?.message).toBe(
      'Unknown kind "Tol"; kinds are Model, Agent, Swarm, Tool, Extension, OAuthApp, Connector, Connection',
    );
    expect(problem?.suggestion).toStartWith('Did you mean "Tool"?');
  });

  test('spec §6.2: metadata.name is required and follows the name rule for every kind (E_NAME_INVALID)', () => {
    expect(byCode('E_NAME_INVALID').map((problem) => problem.message)).toEqual([
      'metadata.name is required, as a string',
      'Resource name "Bad_Name_" may contain only lowercase letters, digits, "_" and "-" (spec §6.2)',
    ]);
  });

  test('a document that is not a mapping is E_RESOURCE_INVALID at the document', () => {
    expect(byCode('E_RESOURCE_INVALID')[0]?.path).toBe('');
  });
});
