import type { ModelResource, ModelResourceSpec } from '../config/resources.ts';
import { GoondanError } from '../errors/goondan-error.ts';
import { rememberSecretValue } from '../permissions/secret-registry.ts';

export type ModelEnv = Record<string, string | undefined>;

/** The variable each provider reads its key from when the Model gives no `spec.apiKey`; null: no key needed. */
export const conventionalApiKeyEnv: Readonly<Record<ModelResourceSpec['provider'], string | null>> = {
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  google: 'GOOGLE_GENERATIVE_AI_API_KEY',
  'openai-compatible': null,
  scripted: null,
};

function describe(resource: ModelResource): string {
  const { file, line, column } = resource.location;
  return `Model '${resource.metadata.name}' (provider ${resource.spec.provider}, declared at ${file}:${line}:${column})`;
}

/**
 * The API key a Model uses: `spec.apiKey` (inline, or read from the named environment variable), else the
 * provider's conventional variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY).
 * Undefined when the provider needs none (openai-compatible without apiKey, scripted). An empty variable counts
 * as unset. Throws E_MODEL_API_KEY_MISSING naming the exact variable to set; the key itself never appears. The key
 * is remembered as a secret (rememberSecretValue), so a provider error that echoes it is masked in every output.
 */
export function resolveModelApiKey(resource: ModelResource, env: ModelEnv = process.env): string | undefined {
  const key = findModelApiKey(resource, env);
  if (key !== undefined) rememberSecretValue(key);
  return key;
}

function findModelApiKey(resource: ModelResource, env: ModelEnv): string | undefined {
  const { apiKey, provider } = resource.spec;
  if (apiKey !== undefined) {
    if ('value' in apiKey) {
      if (apiKey.value !== '') return apiKey.value;
      throw new GoondanError('E_MODEL_API_KEY_MISSING', `${describe(resource)} has an empty spec.apiKey.value.`, {
        suggestion: 'Put the key in an environment variable and use apiKey: { valueFrom: { env: NAME } } instead.',
      });
    }
    const name = apiKey.valueFrom.env;
    const value = env[name];
    if (value) return value;
    throw new GoondanError(
      'E_MODEL_API_KEY_MISSING',
      `${describe(resource)} reads its API key from the environment variable ${name} (spec.apiKey.valueFrom.env), which is not set. Set ${name}.`,
      { suggestion: `Set ${name} in the environment that starts the runtime, e.g. export ${name}=...` },
    );
  }
  const name = conventionalApiKeyEnv[provider];
  if (name === null || name === undefined) return undefined;
  const value = env[name];
  if (value) return value;
  throw new GoondanError(
    'E_MODEL_API_KEY_MISSING',
    `${describe(resource)} needs an API key: set the environment variable ${name}, or give the Model spec.apiKey.`,
    {
      suggestion: `export ${name}=... before starting, or add apiKey: { valueFrom: { env: ${name} } } to the Model resource.`,
    },
  );
}

/**
 * Fails fast, before any turn starts, when a Model cannot get its API key. Throws E_MODEL_API_KEY_MISSING whose
 * message names the variable to set.
 *
 * @example
 * checkModelCredentials(model, process.env); // GoondanError: ... set the environment variable OPENAI_API_KEY ...
 */
export function checkModelCredentials(resource: ModelResource, env: ModelEnv = process.env): void {
  resolveModelApiKey(resource, env);
}
