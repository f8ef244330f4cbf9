import { describe, expect, test } from 'bun:test';
import type { ModelResource, ModelResourceSpec } from '../config/resources.ts';
import { GoondanError } from '../errors/goondan-error.ts';
import type { JsonObject } from '../types.ts';
import { modelCallSettings } from './model-call-settings.ts';

function model(provider: ModelResourceSpec['provider'], params?: JsonObject): ModelResource {
  return {
    apiVersion: 'goondan.ai/v1',
    kind: 'Model',
    metadata: { name: 'main' },
    spec: { provider, model: 'm', ...(params ? { params } : {}) },
    location: { file: 'goondan.yaml', line: 1, column: 1, baseDir: '/tmp' },
  };
}

describe('modelCallSettings', () => {
  test('maps known params and lets the Agent’s params override the Model’s', () => {
    const resource = model('openai', { temperature: 0.7, topP: 0.9, maxTokens: 100, stopSequences: ['END'], seed: 1 });
    expect(modelCallSettings(resource, { temperature: 0.1, presencePenalty: 0.5, frequencyPenalty: 0.2 })).toEqual({
      temperature: 0.1,
      topP: 0.9,
      maxOutputTokens: 100,
      stopSequences: ['END'],
      seed: 1,
      presencePenalty: 0.5,
      frequencyPenalty: 0.2,
    });
    expect(modelCallSettings(model('openai'))).toEqual({});
  });

  test('maxTokens is an alias of maxOutputTokens; an Agent alias overrides the Model’s maxOutputTokens', () => {
    expect(modelCallSettings(model('anthropic', { maxOutputTokens: 10, maxTokens: 99 })).maxOutputTokens).toBe(10);
    expect(modelCallSettings(model('anthropic', { maxOutputTokens: 10 }), { maxTokens: 20 }).maxOutputTokens).toBe(20);
  });

  test('unknown keys go to providerOptions under the provider’s namespace, merged with explicit providerOptions', () => {
    const resource = model('openai-compatible', { min_p: 0.05, providerOptions: { openaiCompatible: { user: 'me' } } });
    expect(modelCallSettings(resource, { top_k: 40 }).providerOptions).toEqual({
      openaiCompatible: { min_p: 0.05, user: 'me', top_k: 40 },
    });
    expect(modelCallSettings(model('openai', { reasoningEffort: 'low' })).providerOptions).toEqual({
      openai: { reasoningEffort: 'low' },
    });
  });

  test('a known key of the wrong type is E_MODEL_CONFIG naming where it came from', () => {
    const run = (params: JsonObject, agentParams?: JsonObject) => {
      try {
        modelCallSettings(model('openai', params), agentParams);
      } catch (error) {
        if (error instanceof GoondanError && error.code === 'E_MODEL_CONFIG') return error.message;
        throw error;
      }
      return 'no error';
    };
    expect(run({ temperature: 'hot' })).toContain('spec.params.temperature must be a number');
    expect(run({}, { maxTokens: 1.5 })).toContain('Agent spec.modelConfig.params.maxTokens must be an integer');
    expect(run({ stopSequences: 'END' })).toContain('spec.params.stopSequences must be a list of strings');
    expect(run({ reasoning: 'lots' })).toContain('spec.params.reasoning must be one of');
    expect(run({ providerOptions: { openai: 1 } })).toContain('spec.params.providerOptions');
    expect(run({ idleTimeoutMs: -1 })).toContain('spec.params.idleTimeoutMs must be an integer ≥ 0');
  });

  test('idleTimeoutMs is a setting of the call, not a provider option', () => {
    expect(modelCallSettings(model('openai-compatible', { idleTimeoutMs: 1000 }), { idleTimeoutMs: 0 })).toEqual({
      idleTimeoutMs: 0,
    });
  });
});
