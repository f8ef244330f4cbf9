import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { loadBundle } from './load-bundle.ts';

describe('Model checks on __fixtures__/bad-models', () => {
  test('what the provider adapters would reject at run time is reported by validation, at the field', async () => {
    const { bundle, problems } = await loadBundle({ dir: join(import.meta.dir, '__fixtures__', 'bad-models') });
    expect(bundle).toBeNull();
    expect(problems.map((problem) => [problem.code, problem.line, problem.path])).toEqual([
      ['E_MODEL_CONFIG', 7, 'spec.provider'],
      ['E_MODEL_CONFIG', 17, 'spec.baseURL'],
      ['E_MODEL_CONFIG', 25, 'spec.model'],
      ['E_MODEL_CONFIG', 35, 'spec.params.temperature'],
      ['E_MODEL_CONFIG', 45, 'spec.script[0].txt'],
      ['E_MODEL_CONFIG', 64, 'spec.modelConfig.params.maxOutputTokens'],
    ]);
    const messages = problems.map((problem) => problem.message);
    expect(messages[0]).toContain('has no spec.baseURL');
    expect(messages[1]).toContain("'localhost:11434/v1' is not an absolute http:// or https:// URL");
    expect(messages[2]).toContain('spec.model must name the model');
    expect(messages[3]).toContain('must be a number');
    expect(messages[4]).toContain('is not a script field');
    expect(messages[5]).toContain("Model 'fine'");
  });
});
