import { describe, expect, test } from 'bun:test';
import { APICallError, TypeValidationError } from '@ai-sdk/provider';
import type { ModelResource } from '../config/resources.ts';
import { describeModelCallFailure } from './describe-model-call-failure.ts';

const resource = {
  kind: 'Model',
  metadata: { name: 'local' },
  spec: { provider: 'openai-compatible', model: 'm', baseURL: 'http://127.0.0.1:9/v1' },
  location: { file: 'goondan.yaml', line: 3, column: 1, baseDir: '.' },
} as unknown as ModelResource;

describe('describeModelCallFailure', () => {
  test('a part the adapter cannot read is one line: the first issue, how many more, how the part began', () => {
    const value = { id: 'x', usage: { total_tokens: 'NaN', prompt_tokens: 'NaN' }, padding: 'p'.repeat(5_000) };
    const issues = [
      { path: ['usage', 'total_tokens'], message: 'Invalid input: expected number, received string' },
      { path: ['usage', 'prompt_tokens'], message: 'Invalid input: expected number, received string' },
    ];
    const cause = Object.assign(new Error(JSON.stringify(issues, null, 2)), { issues });
    const thrown = new TypeValidationError({ value, cause });
    const failure = describeModelCallFailure({
      error: { code: 'E_MODEL_CALL_FAILED', message: thrown.message },
      thrown,
      resource,
    });
    expect(failure.message).not.toContain('\n');
    expect(failure.message).toContain(
      "Model 'local' (provider openai-compatible, http://127.0.0.1:9/v1, declared at goondan.yaml:3:1) failed: the server sent a part of its answer the adapter cannot read, usage.total_tokens: Invalid input: expected number, received string (and 1 more)",
    );
    expect(failure.message.length).toBeLessThan(600);
    expect(failure.suggestion).toContain('check spec.provider and spec.baseURL');
  });

  test('a hosted provider that cannot be reached points at the network, not at a server to start or a baseURL', () => {
    const hosted = {
      ...resource,
      metadata: { name: 'main' },
      spec: { provider: 'openai', model: 'gpt-4.1-mini' },
    } as unknown as ModelResource;
    const thrown = new APICallError({
      message: 'getaddrinfo ENOTFOUND api.openai.com',
      url: 'https://api.openai.com/v1/chat/completions',
      requestBodyValues: {},
    });
    const failure = describeModelCallFailure({
      error: { code: 'E_MODEL_CALL_FAILED', message: thrown.message },
      thrown,
      resource: hosted,
    });
    expect(failure.message).toContain('could not reach its server');
    expect(failure.suggestion).toContain("Check this machine's connection to the openai API (api.openai.com)");
    expect(failure.suggestion).not.toContain('baseURL');
    // A server of one's own (a baseURL) is still asked about.
    const own = describeModelCallFailure({
      error: { code: 'E_MODEL_CALL_FAILED', message: 'fetch failed' },
      thrown,
      resource,
    });
    expect(own.suggestion).toContain('Is the model server running at http://127.0.0.1:9/v1?');
  });
});
