import { describe, expect, test } from 'bun:test';
import type { ModelResource, ModelResourceSpec } from '../config/resources.ts';
import { GoondanError } from '../errors/goondan-error.ts';
import { forgetSecretValues, knownSecretValues } from '../permissions/secret-registry.ts';
import { checkModelCredentials, resolveModelApiKey } from './check-model-credentials.ts';

function model(spec: Partial<ModelResourceSpec> & Pick<ModelResourceSpec, 'provider'>): ModelResource {
  return {
    apiVersion: 'goondan.ai/v1',
    kind: 'Model',
    metadata: { name: 'main' },
    spec: { model: 'some-model', ...spec },
    location: { file: 'goondan.yaml', line: 1, column: 1, baseDir: '/tmp' },
  };
}

function thrownBy(run: () => unknown): GoondanError {
  try {
    run();
  } catch (error) {
    if (error instanceof GoondanError) return error;
    throw error;
  }
  throw new Error('expected a GoondanError');
}

describe('checkModelCredentials', () => {
  test('a missing OpenAI key is E_MODEL_API_KEY_MISSING naming OPENAI_API_KEY', () => {
    const error = thrownBy(() => checkModelCredentials(model({ provider: 'openai' }), {}));
    expect(error.code).toBe('E_MODEL_API_KEY_MISSING');
    expect(error.name).toBe('ModelApiKeyMissingError');
    expect(error.message).toContain('set the environment variable OPENAI_API_KEY');
    expect(error.message).toContain("Model 'main'");
    expect(error.message).toContain('goondan.yaml:1:1');
    expect(error.suggestion).toContain('OPENAI_API_KEY');
  });

  test('names each provider’s conventional variable', () => {
    expect(thrownBy(() => checkModelCredentials(model({ provider: 'anthropic' }), {})).message).toContain(
      'ANTHROPIC_API_KEY',
    );
    expect(thrownBy(() => checkModelCredentials(model({ provider: 'google' }), {})).message).toContain(
      'GOOGLE_GENERATIVE_AI_API_KEY',
    );
  });

  test('a ValueSource whose variable is unset names that variable', () => {
    const resource = model({ provider: 'openai', apiKey: { valueFrom: { env: 'TEAM_OPENAI_KEY' } } });
    const error = thrownBy(() => checkModelCredentials(resource, { OPENAI_API_KEY: 'sk-unused' }));
    expect(error.code).toBe('E_MODEL_API_KEY_MISSING');
    expect(error.message).toContain('TEAM_OPENAI_KEY');
    expect(error.message).not.toContain('OPENAI_API_KEY');
  });

  test('an empty variable counts as unset', () => {
    expect(thrownBy(() => checkModelCredentials(model({ provider: 'openai' }), { OPENAI_API_KEY: '' })).code).toBe(
      'E_MODEL_API_KEY_MISSING',
    );
  });

  test('passes with the conventional variable, a ValueSource variable or an inline value, and never shows the key', () => {
    expect(resolveModelApiKey(model({ provider: 'openai' }), { OPENAI_API_KEY: 'sk-env' })).toBe('sk-env');
    const fromEnv = model({ provider: 'anthropic', apiKey: { valueFrom: { env: 'MY_KEY' } } });
    expect(resolveModelApiKey(fromEnv, { MY_KEY: 'sk-mine' })).toBe('sk-mine');
    expect(resolveModelApiKey(model({ provider: 'google', apiKey: { value: 'inline' } }), {})).toBe('inline');
  });

  test('openai-compatible and scripted need no key, but an explicit ValueSource must resolve', () => {
    expect(
      resolveModelApiKey(model({ provider: 'openai-compatible', baseURL: 'http://localhost:1/v1' }), {}),
    ).toBeUndefined();
    expect(resolveModelApiKey(model({ provider: 'scripted' }), {})).toBeUndefined();
    const resource = model({ provider: 'openai-compatible', apiKey: { valueFrom: { env: 'VLLM_KEY' } } });
    expect(thrownBy(() => checkModelCredentials(resource, {})).message).toContain('VLLM_KEY');
  });

  test('the key a Model uses is remembered as a secret, from each place it can come from', () => {
    try {
      resolveModelApiKey(model({ provider: 'openai' }), { OPENAI_API_KEY: 'conventional-5d1e9a' });
      resolveModelApiKey(model({ provider: 'anthropic', apiKey: { valueFrom: { env: 'K' } } }), {
        K: 'from-env-7c2b4f',
      });
      resolveModelApiKey(model({ provider: 'google', apiKey: { value: 'inline-key-3a8d' } }), {});
      expect(knownSecretValues()).toEqual(
        expect.arrayContaining(['conventional-5d1e9a', 'from-env-7c2b4f', 'inline-key-3a8d']),
      );
    } finally {
      forgetSecretValues();
    }
  });
});
