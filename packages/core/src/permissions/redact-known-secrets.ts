import { REDACTED } from './redact-secrets.ts';
import { knownSecretValues } from './secret-registry.ts';

/** Deeper than this, a container is checked as a whole rather than walked. */
const MAX_WALK_DEPTH = 256;

function maskString(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function containsSecret(value: unknown, secrets: readonly string[]): boolean {
  try {
    const text = JSON.stringify(value) ?? '';
    return secrets.some((secret) => text.includes(secret));
  } catch {
    return false;
  }
}

function walk(value: unknown, secrets: readonly string[], depth: number): unknown {
  if (typeof value === 'string') return maskString(value, secrets);
  if (value === null || typeof value !== 'object') return value;
  if (!Array.isArray(value) && !isPlainObject(value)) return value;
  if (depth >= MAX_WALK_DEPTH) return containsSecret(value, secrets) ? REDACTED : value;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    value.forEach((item, index) => {
      const masked = walk(item, secrets, depth + 1);
      if (masked === item) return;
      copy ??= [...value];
      copy[index] = masked;
    });
    return copy ?? value;
  }
  let copy: Record<string, unknown> | null = null;
  for (const [key, entry] of Object.entries(value)) {
    const masked = walk(entry, secrets, depth + 1);
    if (masked === entry) continue;
    copy ??= { ...value };
    if (key === '__proto__') Object.defineProperty(copy, key, { value: masked, enumerable: true, writable: true });
    else copy[key] = masked;
  }
  return copy ?? value;
}

/**
 * `value` with every known secret value (rememberSecretValue: ValueSources, model keys) replaced by "[REDACTED]",
 * inside strings of any plain object or array, at any depth. Only the values, never guesses from names or shapes,
 * so it is safe on content a model reads back. Returns `value` itself when nothing was masked; class instances
 * (Date, Uint8Array) pass untouched.
 *
 * @example
 * rememberSecretValue('k-8f3a9c1d77');
 * redactKnownSecrets({ text: 'the key is k-8f3a9c1d77.' }) // { text: 'the key is [REDACTED].' }
 */
export function redactKnownSecrets<T>(value: T, secrets: readonly string[] = knownSecretValues()): T {
  if (secrets.length === 0) return value;
  return walk(value, secrets, 0) as T;
}
