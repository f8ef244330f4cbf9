import type { JsonValue } from '@goondan/core';
import { redactSecrets, secretValuesFromEnv } from '@goondan/core/session';

function isPlainData(value: object): boolean {
  if (Array.isArray(value)) return true;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * What the CLI prints for people (tool lines, logs, errors), redacted like the audit log: secret-named fields,
 * credentials of a known shape (`Bearer …`, `user:pass@`, `sk-…`), the values of secret-named environment
 * variables, and every known secret value (ValueSources, model keys). Strings, and plain objects and arrays that
 * are JSON, are redacted; anything else (an Error, a Map) is returned as is, for the printer to catch as text.
 */
export function redactForOutput<T>(value: T, env: Readonly<Record<string, string | undefined>> = process.env): T {
  const secretValues = secretValuesFromEnv(env);
  if (typeof value === 'string') return redactSecrets(value, { secretValues }) as T;
  if (value === null || typeof value !== 'object' || !isPlainData(value)) return value;
  try {
    return redactSecrets(JSON.parse(JSON.stringify(value)) as JsonValue, { secretValues }) as T;
  } catch {
    return value;
  }
}
