import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { ModelResource } from '../config/resources.ts';
import { GoondanError } from '../errors/goondan-error.ts';
import { isSecretKey } from '../permissions/redact-secrets.ts';
import { rememberSecretValue } from '../permissions/secret-registry.ts';
import { type ModelEnv, resolveModelApiKey } from './check-model-credentials.ts';
import { lazyLanguageModel } from './lazy-language-model.ts';
import { baseURLIssue } from './model-config-issues.ts';
import { parseScriptedSteps } from './parse-scripted-steps.ts';
import { createScriptedModel } from './scripted-model.ts';

/** How many of its latest calls a scripted Model declared in a bundle keeps in its `calls` record. */
const DECLARED_SCRIPTED_KEPT_CALLS = 8;

export interface CreateLanguageModelOptions {
  /** Where API keys are read from; process.env by default. */
  env?: ModelEnv;
  /** Replaces the global fetch for HTTP providers (tests, proxies). */
  fetch?: typeof fetch;
}

/**
 * The AI SDK language model a Model resource describes, ready for `streamText`/`generateText`.
 *
 * - openai: `createOpenAI(...).chat(model)`, the Chat Completions API (not the SDK's default Responses API), so
 *   the same wire format as openai-compatible servers and the test server.
 * - anthropic, google: the provider's default language model.
 * - Each provider package is imported on the model's first call (lazyLanguageModel), not when this module loads.
 * - openai-compatible: `createOpenAICompatible({ name: 'openai-compatible', baseURL, includeUsage: true })`;
 *   spec.baseURL is required, the API key optional.
 * - scripted: `createScriptedModel(spec.script)`, a playback for tests and demos, not a language model. Each call
 *   of createLanguageModel starts the script again, so create one model per agent instance.
 *
 * The key comes from spec.apiKey, else the provider's conventional variable, read from `options.env`; a missing
 * key throws E_MODEL_API_KEY_MISSING naming the variable. Bad configuration throws E_MODEL_CONFIG.
 *
 * @example
 * const model = createLanguageModel(bundle.resources.get('Model/main') as ModelResource);
 * const result = streamText({ model, messages, tools, ...modelCallSettings(resource, agentParams) });
 */
export function createLanguageModel(
  resource: ModelResource,
  options: CreateLanguageModelOptions = {},
): LanguageModelV4 {
  const { spec, metadata } = resource;
  const env = options.env ?? process.env;
  const fetch = options.fetch;
  if (typeof spec.model !== 'string' || spec.model === '') {
    throw new GoondanError('E_MODEL_CONFIG', `Model '${metadata.name}': spec.model must name the model to use.`);
  }
  const baseURL = spec.baseURL === undefined ? undefined : checkBaseURL(resource, spec.baseURL);
  switch (spec.provider) {
    case 'openai': {
      const apiKey = resolveModelApiKey(resource, env);
      const modelId = spec.model;
      return lazyLanguageModel({
        provider: 'openai.chat',
        modelId,
        load: async () => (await import('@ai-sdk/openai')).createOpenAI({ apiKey, baseURL, fetch }).chat(modelId),
      });
    }
    case 'anthropic': {
      const apiKey = resolveModelApiKey(resource, env);
      const modelId = spec.model;
      return lazyLanguageModel({
        provider: 'anthropic.messages',
        modelId,
        load: async () =>
          (await import('@ai-sdk/anthropic')).createAnthropic({ apiKey, baseURL, fetch }).languageModel(modelId),
      });
    }
    case 'google': {
      const apiKey = resolveModelApiKey(resource, env);
      const modelId = spec.model;
      return lazyLanguageModel({
        provider: 'google.generative-ai',
        modelId,
        load: async () =>
          (await import('@ai-sdk/google')).createGoogle({ apiKey, baseURL, fetch }).languageModel(modelId),
      });
    }
    case 'openai-compatible': {
      if (baseURL === undefined) {
        throw new GoondanError(
          'E_MODEL_CONFIG',
          `Model '${metadata.name}' uses provider openai-compatible but has no spec.baseURL; set it to the server's API root, e.g. http://localhost:11434/v1 (Ollama) or http://localhost:8000/v1 (vLLM).`,
        );
      }
      const apiKey = resolveModelApiKey(resource, env);
      const modelId = spec.model;
      return lazyLanguageModel({
        provider: 'openai-compatible.chat',
        modelId,
        load: async () =>
          (await import('@ai-sdk/openai-compatible'))
            .createOpenAICompatible({ name: 'openai-compatible', baseURL, apiKey, fetch, includeUsage: true })
            .chatModel(modelId),
      });
    }
    case 'scripted':
      return createScriptedModel(parseScriptedSteps(spec.script, `Model '${metadata.name}' spec.script`), {
        modelId: spec.model,
        // Nobody reads a declared Model's record, and each call kept holds its whole prompt: under `gdn serve` an
        // instance's record grew with every turn, its prompts with the conversation (hundreds of MB in minutes).
        keepCalls: DECLARED_SCRIPTED_KEPT_CALLS,
      });
    default: {
      const provider: never = spec.provider;
      throw new GoondanError(
        'E_MODEL_CONFIG',
        `Model '${metadata.name}' has unknown provider '${String(provider)}'; use openai, anthropic, google, openai-compatible or scripted.`,
      );
    }
  }
}

/**
 * A password in the URL (`http://user:password@host`) and the values of query parameters named like secrets
 * (`?api_key=…`) are secrets like an API key: every output sink masks them (a failed call's message names the URL).
 */
function rememberURLSecrets(baseURL: string): void {
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    return;
  }
  const values = [
    url.password,
    ...[...url.searchParams]
      .filter(([name]) => isSecretKey(name) || /^(?:key|sig|signature)$/i.test(name))
      .map(([, value]) => value),
  ];
  for (const value of values) {
    if (value === '') continue;
    rememberSecretValue(value);
    rememberSecretValue(safeDecode(value));
  }
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function checkBaseURL(resource: ModelResource, baseURL: string): string {
  const issue = baseURLIssue(baseURL);
  if (issue) throw new GoondanError('E_MODEL_CONFIG', `Model '${resource.metadata.name}': ${issue}`);
  rememberURLSecrets(baseURL);
  return baseURL.replace(/\/+$/, '');
}
