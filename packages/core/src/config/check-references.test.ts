import { beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import type { LoadBundleResult } from './load-bundle.ts';
import { loadBundle } from './load-bundle.ts';
import type { BundleProblem } from './resources.ts';

const fixture = (name: string) => join(import.meta.dir, '__fixtures__', name);
const brief = (problem: BundleProblem) => [problem.code, problem.line, problem.column, problem.path];

describe('references on __fixtures__/bad-refs', () => {
  let result: LoadBundleResult;
  const byPath = (path: string) => result.problems.find((problem) => problem.path === path);
  beforeAll(async () => {
    result = await loadBundle({ dir: fixture('bad-refs') });
  });

  test('reports every bad reference at its node; the valid { ref, config } entry passes', () => {
    expect(result.bundle).toBeNull();
    expect(result.problems.map(brief)).toEqual([
      ['E_REF_UNRESOLVED', 15, 15, 'spec.modelConfig.modelRef'],
      ['E_REF_INVALID', 17, 7, 'spec.tools[0]'],
      ['E_REF_UNRESOLVED', 18, 7, 'spec.tools[1]'],
      ['E_REF_UNRESOLVED', 19, 7, 'spec.tools[2]'],
      ['E_REF_INVALID', 22, 7, 'spec.tools[4]'],
      ['E_REF_INVALID', 24, 7, 'spec.tools[5]'],
      ['E_REF_INVALID', 25, 7, 'spec.tools[6]'],
      ['E_REF_UNRESOLVED', 27, 7, 'spec.extensions[0]'],
      ['E_REF_UNRESOLVED', 34, 3, 'spec.entryAgent'],
      ['E_REF_UNRESOLVED', 37, 7, 'spec.agents[1]'],
    ]);
  });

  test('a reference to a missing resource lists the names of that kind and guesses the intended one', () => {
    expect(byPath('spec.tools[1]')?.message).toBe(
      'spec.tools[1] refers to Tool/bsh, which is not declared; Tools that exist: bash',
    );
    expect(byPath('spec.tools[1]')?.suggestion).toBe('Did you mean "Tool/bash"?');
    expect(byPath('spec.extensions[0]')?.message).toContain('no Extension is declared');
  });

  test('a reference to a resource of the wrong kind is E_REF_UNRESOLVED (Agent.tools must name Tools)', () => {
    expect(byPath('spec.tools[2]')?.message).toContain('refers to Model/model, but it must refer to a Tool');
    expect(byPath('spec.agents[1]')?.message).toContain('but it must refer to an Agent');
  });

  test('the object form { kind, name } is resolved too (Swarm.entryAgent)', () => {
    expect(byPath('spec.entryAgent')?.message).toContain('Agent/agnet');
  });

  test('a bare name is E_REF_INVALID, suggesting the Kind/name form when that resource exists', () => {
    expect(byPath('spec.tools[0]')?.suggestion).toBe('Write "Tool/bash".');
  });

  test('unknown fields beside ref are E_REF_INVALID', () => {
    expect(byPath('spec.tools[4]')?.message).toContain('confg');
  });
});

test('both reference forms resolve in a valid bundle', async () => {
  const { bundle, problems } = await loadBundle({ dir: fixture('good') });
  expect(problems).toEqual([]);
  expect(bundle?.resources.get('Agent/helper')?.spec).toMatchObject({
    tools: ['Tool/greet', { ref: { kind: 'Tool', name: 'calc' }, config: { precision: 4 } }],
    extensions: [{ kind: 'Extension', name: 'logger' }],
  });
});
