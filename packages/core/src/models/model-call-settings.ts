import type { LanguageModelV4CallOptions, SharedV4ProviderOptions } from '@ai-sdk/provider';
import type { ModelResource, ModelResourceSpec } from '../config/resources.ts';
import { GoondanError } from '../errors/goondan-error.ts';
import type { JsonObject, JsonValue } from '../types.ts';

/** The settings `streamText`/`generateText` take from a Model's params; spread them into the call. */
export interface ModelCallSettings {
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  stopSequences?: string[];
  seed?: number;
  reasoning?: LanguageModelV4CallOptions['reasoning'];
  maxRetries?: number;
  /** How long a call may go without a sign of life from the server before it is given up (ms; 0: never). */
  idleTimeoutMs?: number;
  providerOptions?: SharedV4ProviderOptions;
}

type NumberKey = 'maxOutputTokens' | 'temperature' | 'topP' | 'topK' | 'presencePenalty' | 'frequencyPenalty';
const numberKeys = new Set<string>(['temperature', 'topP', 'topK', 'presencePenalty', 'frequencyPenalty']);
const integerKeys = new Set<string>(['maxOutputTokens', 'seed', 'maxRetries', 'idleTimeoutMs']);
const reasoningLevels = ['provider-default', 'none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;

/**
 * The providerOptions namespace each provider reads. openai-compatible reads `openaiCompatible` and copies every key
 * it does not know into the request body, which is how server-specific knobs (vLLM `min_p`, ...) get through.
 */
export const providerOptionsKey: Readonly<Record<ModelResourceSpec['provider'], string>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  google: 'google',
  'openai-compatible': 'openaiCompatible',
  scripted: 'scripted',
};

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(resource: ModelResource, path: string, problem: string): never {
  throw new GoondanError('E_MODEL_CONFIG', `Model '${resource.metadata.name}': ${path} ${problem}`);
}

/** One layer of params (Model's or Agent's) → settings; `maxTokens` is read as `maxOutputTokens`. */
function readLayer(resource: ModelResource, params: JsonObject, where: string): ModelCallSettings {
  const settings: ModelCallSettings = {};
  const extra: JsonObject = {};
  const namespace = providerOptionsKey[resource.spec.provider] ?? resource.spec.provider;
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    const name = key === 'maxTokens' ? 'maxOutputTokens' : key;
    if (name === 'maxOutputTokens' && key === 'maxTokens' && params.maxOutputTokens != null) continue;
    const path = `${where}.${key}`;
    if (integerKeys.has(name)) {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
        fail(resource, path, 'must be an integer ≥ 0.');
      settings[name as 'maxOutputTokens' | 'seed' | 'maxRetries' | 'idleTimeoutMs'] = value;
    } else if (numberKeys.has(name)) {
      if (typeof value !== 'number' || !Number.isFinite(value)) fail(resource, path, 'must be a number.');
      settings[name as NumberKey] = value;
    } else if (name === 'stopSequences') {
      if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
        fail(resource, path, 'must be a list of strings.');
      }
      settings.stopSequences = value as string[];
    } else if (name === 'reasoning') {
      const level = reasoningLevels.find((candidate) => candidate === value);
      if (level === undefined) fail(resource, path, `must be one of ${reasoningLevels.join(', ')}.`);
      settings.reasoning = level;
    } else if (name === 'providerOptions') {
      if (!isObject(value) || !Object.values(value).every(isObject)) {
        fail(resource, path, 'must map a provider name to an object of options, e.g. { openai: { user: "me" } }.');
      }
      settings.providerOptions = mergeProviderOptions(settings.providerOptions, value as SharedV4ProviderOptions);
    } else {
      extra[key] = value;
    }
  }
  if (Object.keys(extra).length > 0) {
    settings.providerOptions = mergeProviderOptions({ [namespace]: extra }, settings.providerOptions);
  }
  return settings;
}

function mergeProviderOptions(
  base: SharedV4ProviderOptions | undefined,
  over: SharedV4ProviderOptions | undefined,
): SharedV4ProviderOptions | undefined {
  if (!base) return over;
  if (!over) return base;
  const merged: SharedV4ProviderOptions = { ...base };
  for (const [provider, options] of Object.entries(over)) merged[provider] = { ...merged[provider], ...options };
  return merged;
}

/**
 * The call settings for a Model: its `spec.params` with the Agent's `modelConfig.params` over them (key by key;
 * providerOptions merged per provider). Known keys: temperature, topP, topK, maxOutputTokens (alias maxTokens),
 * stopSequences, seed, presencePenalty, frequencyPenalty, reasoning, maxRetries, idleTimeoutMs, providerOptions. Any other key goes
 * to `providerOptions[<provider namespace>]` (see `providerOptionsKey`), where the provider reads it as one of its
 * own options. Throws E_MODEL_CONFIG when a known key has the wrong type.
 *
 * @example
 * streamText({ model, messages, ...modelCallSettings(modelResource, agent.spec.modelConfig?.params) });
 */
export function modelCallSettings(resource: ModelResource, agentParams?: JsonObject): ModelCallSettings {
  const base = readLayer(resource, resource.spec.params ?? {}, 'spec.params');
  const over = readLayer(resource, agentParams ?? {}, 'Agent spec.modelConfig.params');
  const providerOptions = mergeProviderOptions(base.providerOptions, over.providerOptions);
  return { ...base, ...over, ...(providerOptions ? { providerOptions } : {}) };
}
