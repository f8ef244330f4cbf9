import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Ajv, ValidateFunction } from 'ajv';
import { goondanCacheDir, writeCacheFile } from './cache-file.ts';
import { checkerFingerprint } from './checker-fingerprint.ts';

/** Runs a cached standalone module; its `require`s (Ajv's runtime helpers) resolve from here. */
function evaluate(code: string): ValidateFunction | null {
  const module: { exports: { default?: unknown } } = { exports: {} };
  new Function('require', 'module', 'exports', code)(require, module, module.exports);
  return typeof module.exports.default === 'function' ? (module.exports.default as ValidateFunction) : null;
}

/**
 * `ajv.compile(schema)`, kept as Ajv's standalone code in the user's cache (goondanCacheDir()/validators), keyed by
 * the schema, `name` (which says how `ajv` is configured) and the checker's fingerprint: compiling a schema costs
 * tens of milliseconds at every start, reading the compiled code about one. `ajv` must have `code.source: true`;
 * it is read only on a miss, so a getter can create it then (a hit does not load Ajv at all, ~40 ms of a start).
 * A missing, corrupt or unwritable cache compiles as usual.
 */
export function compileCachedValidator(options: {
  ajv: Ajv;
  schema: Record<string, unknown>;
  name: string;
  cacheDir?: string;
}): ValidateFunction {
  const { schema, name } = options;
  const fingerprint = checkerFingerprint();
  if (fingerprint === null) return options.ajv.compile(schema);
  const hasher = new Bun.CryptoHasher('sha256');
  hasher.update(`${fingerprint}\0${name}\0${JSON.stringify(schema)}`);
  const dir = options.cacheDir ?? join(goondanCacheDir(), 'validators');
  const path = join(dir, `${hasher.digest('hex')}.cjs`);
  try {
    const cached = evaluate(readFileSync(path, 'utf8'));
    if (cached) return cached;
  } catch {
    // Missing or corrupt: compiled again below, and the entry replaced.
  }
  const ajv = options.ajv;
  const validate = ajv.compile(schema);
  try {
    const standaloneCode = (require('ajv/dist/standalone/index.js') as typeof import('ajv/dist/standalone/index.js'))
      .default;
    writeCacheFile({ dir, path, text: standaloneCode(ajv, validate) });
  } catch {
    // Ajv could not make standalone code for this schema: it is compiled at every start.
  }
  return validate;
}
