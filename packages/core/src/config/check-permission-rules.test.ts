import { beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { loadBundle } from './load-bundle.ts';
import type { BundleProblem } from './resources.ts';

describe('permission rules and categories on __fixtures__/bad-permissions', () => {
  let problems: BundleProblem[] = [];
  beforeAll(async () => {
    const result = await loadBundle({ dir: join(import.meta.dir, '__fixtures__', 'bad-permissions') });
    expect(result.bundle).toBeNull();
    problems = result.problems;
  });
  const at = (path: string) => problems.filter((problem) => problem.path === path);

  test('a rule naming a missing export of a bundle Tool is E_REF_UNRESOLVED with the closest name', () => {
    const [misspelt] = at('spec.permissions.tools.notes__remvoe');
    expect(misspelt).toMatchObject({ code: 'E_REF_UNRESOLVED', line: 27, column: 7 });
    expect(misspelt!.message).toContain("did you mean 'notes__remove'");
    expect(at('spec.permissions.sources["user:telegram"].tools.notes__ad')[0]?.code).toBe('E_REF_UNRESOLVED');
    expect(at('spec.permissions.registryDirectCalls[0]')[0]?.message).toContain("Tool 'notes' has no export 'rm'");
  });

  test('globs and names of tools the bundle does not declare (MCP, extensions) are not flagged', () => {
    expect(at('spec.permissions.tools["notes__*"]')).toEqual([]);
    expect(problems.some((problem) => problem.message.includes('github__create_issue'))).toBe(false);
  });

  test('bad decisions, timeouts and categories are shape errors at their field', () => {
    expect(at('spec.permissions.sources["user:telegram"].sensitive')[0]).toMatchObject({ code: 'E_RESOURCE_INVALID' });
    expect(at('spec.permissions.approvalTimeoutSeconds')[0]).toMatchObject({ code: 'E_RESOURCE_INVALID' });
    expect(at('spec.category')[0]?.message).toContain('safe, sensitive, restricted');
    expect(at('spec.exports[0].category')[0]?.code).toBe('E_RESOURCE_INVALID');
  });

  test('nothing else is reported', () => {
    expect(problems).toHaveLength(7);
  });
});
