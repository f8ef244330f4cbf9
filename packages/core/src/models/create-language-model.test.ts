import { describe, expect, test } from 'bun:test';
import { generateText } from 'ai';
import type { ModelResource, ModelResourceSpec } from '../config/resources.ts';
import { GoondanError } from '../errors/goondan-error.ts';
import { createLanguageModel } from './create-language-model.ts';
import type { ScriptedModel } from './scripted-model.ts';

function model(spec: Partial<ModelResourceSpec> & Pick<ModelResourceSpec, 'provider'>): ModelResource {
  return {
    apiVersion: 'goondan.ai/v1',
    kind: 'Model',
    metadata: { name: 'main' },
    spec: { model: 'some-model', ...spec },
    location: { file: 'goondan.yaml', line: 3, column: 1, baseDir: '/tmp' },
  };
}

function codeAndMessage(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof GoondanError) return `${error.code}: ${error.message}`;
    throw error;
  }
  return 'no error';
}

/** A fetch that records the request and answers 401, so provider requests can be inspected with no network. */
function recordingFetch() {
  const seen: { url: string; headers: Headers }[] = [];
  const fake = (async (input: string | URL | Request, init?: RequestInit) => {
    seen.push({ url: String(input), headers: new Headers(init?.headers) });
    return Response.json({ error: { message: 'unauthorized', type: 'auth' } }, { status: 401 });
  }) as typeof fetch;
  return { seen, fetch: fake };
}

describe('createLanguageModel', () => {
  test('builds the provider named by the Model', () => {
    const env = { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k', GOOGLE_GENERATIVE_AI_API_KEY: 'k' };
    const built = (spec: Parameters<typeof model>[0]) => {
      const languageModel = createLanguageModel(model(spec), { env });
      return [languageModel.specificationVersion, languageModel.provider, languageModel.modelId];
    };
    expect(built({ provider: 'openai' })).toEqual(['v4', 'openai.chat', 'some-model']);
    expect(built({ provider: 'anthropic' })).toEqual(['v4', 'anthropic.messages', 'some-model']);
    expect(built({ provider: 'google' })).toEqual(['v4', 'google.generative-ai', 'some-model']);
    expect(built({ provider: 'openai-compatible', baseURL: 'http://127.0.0.1:1/v1/' })).toEqual([
      'v4',
      'openai-compatible.chat',
      'some-model',
    ]);
    expect(built({ provider: 'scripted' })).toEqual(['v4', 'scripted', 'some-model']);
  });

  test('a missing key fails when the model is built, naming the variable', () => {
    expect(codeAndMessage(() => createLanguageModel(model({ provider: 'anthropic' }), { env: {} }))).toContain(
      'E_MODEL_API_KEY_MISSING: ',
    );
    expect(codeAndMessage(() => createLanguageModel(model({ provider: 'anthropic' }), { env: {} }))).toContain(
      'ANTHROPIC_API_KEY',
    );
  });

  test('openai-compatible without baseURL, or with a baseURL that is not http(s), is E_MODEL_CONFIG', () => {
    const missing = codeAndMessage(() => createLanguageModel(model({ provider: 'openai-compatible' }), { env: {} }));
    expect(missing).toStartWith('E_MODEL_CONFIG: ');
    expect(missing).toContain('has no spec.baseURL');
    const wrong = codeAndMessage(() =>
      createLanguageModel(model({ provider: 'openai-compatible', baseURL: 'localhost:11434' }), { env: {} }),
    );
    expect(wrong).toContain("spec.baseURL 'localhost:11434' is not an absolute http:// or https:// URL");
  });

  test('guards a provider that validation should have refused', () => {
    const resource = model({ provider: 'mystery' as ModelResourceSpec['provider'] });
    expect(codeAndMessage(() => createLanguageModel(resource, { env: {} }))).toContain("unknown provider 'mystery'");
  });

  test('uses the key from options.env and the baseURL with the provider’s own auth header', async () => {
    const anthropic = recordingFetch();
    const anthropicModel = createLanguageModel(
      model({ provider: 'anthropic', baseURL: 'http://127.0.0.1:9/anthropic' }),
      {
        env: { ANTHROPIC_API_KEY: 'sk-ant-test' },
        fetch: anthropic.fetch,
      },
    );
    await generateText({ model: anthropicModel, prompt: 'x', maxRetries: 0 }).catch(() => undefined);
    expect(anthropic.seen[0]?.url).toBe('http://127.0.0.1:9/anthropic/messages');
    expect(anthropic.seen[0]?.headers.get('x-api-key')).toBe('sk-ant-test');

    const google = recordingFetch();
    const googleModel = createLanguageModel(
      model({ provider: 'google', apiKey: { valueFrom: { env: 'GEMINI_KEY' } }, baseURL: 'http://127.0.0.1:9/google' }),
      { env: { GEMINI_KEY: 'g-test' }, fetch: google.fetch },
    );
    await generateText({ model: googleModel, prompt: 'x', maxRetries: 0 }).catch(() => undefined);
    expect(google.seen[0]?.url).toStartWith('http://127.0.0.1:9/google/models/some-model:generateContent');
    expect(google.seen[0]?.headers.get('x-goog-api-key')).toBe('g-test');
  });

  test('a scripted Model plays spec.script; a malformed script is E_MODEL_CONFIG with the field path', async () => {
    const scripted = createLanguageModel(model({ provider: 'scripted', script: [{ text: 'from YAML' }] }));
    expect((await generateText({ model: scripted, prompt: 'x' })).text).toBe('from YAML');
    // A declared Model answers for as long as gdn serve runs: its record of calls (each with its prompt) is bounded.
    for (let call = 0; call < 20; call += 1) await generateText({ model: scripted, prompt: 'again' });
    expect((scripted as ScriptedModel).calls.length).toBe(8);
    const bad = codeAndMessage(() => createLanguageModel(model({ provider: 'scripted', script: [{ text: 1 }] })));
    expect(bad).toBe("E_MODEL_CONFIG: Model 'main' spec.script[0].text must be a string.");
  });
});

describe('lazy provider models', () => {
  test('report the provider and model id of the real model they load', async () => {
    const env = { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k', GOOGLE_GENERATIVE_AI_API_KEY: 'k' };
    const baseURL = 'http://127.0.0.1:9/v1';
    const real = {
      openai: async () => (await import('@ai-sdk/openai')).createOpenAI({ apiKey: 'k', baseURL }).chat('some-model'),
      anthropic: async () =>
        (await import('@ai-sdk/anthropic')).createAnthropic({ apiKey: 'k', baseURL }).languageModel('some-model'),
      google: async () =>
        (await import('@ai-sdk/google')).createGoogle({ apiKey: 'k', baseURL }).languageModel('some-model'),
      'openai-compatible': async () =>
        (await import('@ai-sdk/openai-compatible'))
          .createOpenAICompatible({ name: 'openai-compatible', baseURL })
          .chatModel('some-model'),
    } as const;
    for (const [provider, load] of Object.entries(real)) {
      const lazy = createLanguageModel(model({ provider: provider as ModelResourceSpec['provider'], baseURL }), {
        env,
      });
      const loaded = await load();
      expect([lazy.provider, lazy.modelId, lazy.specificationVersion]).toEqual([
        loaded.provider,
        loaded.modelId,
        loaded.specificationVersion,
      ]);
      expect(await lazy.supportedUrls).toEqual(await loaded.supportedUrls);
    }
  });
});
