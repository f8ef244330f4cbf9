import { beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { loadBundle } from './load-bundle.ts';
import type { BundleProblem } from './resources.ts';

describe('permission rules and categories on __fixtures__/bad-permissions', () => {
  let problems: BundleProblem[] = [];
  let warnings: BundleProblem[] = [];
  beforeAll(async () => {
    const result = await loadBundle({ dir: join(import.meta.dir, '__fixtures__', 'bad-permissions') });
    expect(result.bundle).toBeNull();
    problems = result.problems;
    warnings = result.warnings;
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

  test('a rule naming a bundle Tool in another case names no tool: E_REF_UNRESOLVED with the exact name', () => {
    const [cased] = at('spec.permissions.tools.NOTES__remove');
    expect(cased).toMatchObject({ code: 'E_REF_UNRESOLVED' });
    expect(cased!.message).toContain("did you mean 'notes__remove'");
  });

  test('a glob whose Tool part names a bundle Tool in another case matches no tool: E_REF_UNRESOLVED', () => {
    const [cased] = at('spec.permissions.tools["Notes__*"]');
    expect(cased).toMatchObject({ code: 'E_REF_UNRESOLVED' });
    expect(cased!.message).toContain("did you mean 'notes__*'");
  });

  test('a glob whose braces do not pair matches no tool: E_RESOURCE_INVALID at the rule', () => {
    const [unpaired] = at('spec.permissions.tools["notes__{add"]');
    expect(unpaired).toMatchObject({ code: 'E_RESOURCE_INVALID' });
    expect(unpaired!.message).toContain("has a '{' without its '}'");
  });

  test('a source key of a kind no turn has is an E_FIELD_IGNORED warning with the kind meant', () => {
    expect(warnings.map((warning) => [warning.code, warning.path])).toContainEqual([
      'E_FIELD_IGNORED',
      'spec.permissions.sources["users:telegram"]',
    ]);
    const kind = warnings.find((warning) => warning.path === 'spec.permissions.sources["users:telegram"]');
    expect(kind!.message).toContain("did you mean 'user:telegram'?");
    expect(warnings.some((warning) => warning.path === 'spec.permissions.sources.agent')).toBe(false);
  });

  test('nothing else is reported', () => {
    expect(problems).toHaveLength(10);
  });
});
