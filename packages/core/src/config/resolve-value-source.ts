import { GoondanError } from '../errors/goondan-error.ts';
import { rememberSecretValue } from '../permissions/secret-registry.ts';
import type { ValueSource } from '../types.ts';

/**
 * The value a ValueSource stands for: inline, or read from the environment. An unset (or empty) variable throws
 * E_VALUE_SOURCE_ENV naming it. The value is remembered as a secret (rememberSecretValue), so every output sink
 * masks it from then on.
 * @example resolveValueSource({ valueFrom: { env: 'OPENAI_API_KEY' } }) // process.env.OPENAI_API_KEY
 */
export function resolveValueSource(source: ValueSource, env: Record<string, string | undefined> = process.env): string {
  if ('value' in source) return remembered(source.value);
  const name = source.valueFrom.env;
  const value = env[name];
  if (value === undefined || value === '') {
    throw new GoondanError('E_VALUE_SOURCE_ENV', `Environment variable ${name} is not set`, {
      suggestion: `Set ${name} (for example \`export ${name}=...\`), or give the value inline with value:.`,
    });
  }
  return remembered(value);
}

function remembered(value: string): string {
  rememberSecretValue(value);
  return value;
}
