import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

let fingerprint: string | null | undefined;

/**
 * What decides how a bundle file parses and checks, besides its text: the source of the loader and its checks
 * (config/, errors/, tools/ of @goondan/core) and the versions of yaml and ajv. Any change there makes every entry
 * stale. Null (no caching) when the sources cannot be read, e.g. in a bundled build.
 */
export function checkerFingerprint(): string | null {
  if (fingerprint !== undefined) return fingerprint;
  try {
    const hasher = new Bun.CryptoHasher('sha256');
    for (const folder of ['config', 'errors', 'tools']) {
      const dir = join(import.meta.dir, '..', folder);
      for (const name of readdirSync(dir).sort()) {
        if (!name.endsWith('.ts') || name.endsWith('.test.ts')) continue;
        hasher.update(`${folder}/${name}\0`);
        hasher.update(readFileSync(join(dir, name)));
      }
    }
    for (const dependency of ['yaml', 'ajv', 'ajv-formats']) {
      const version = (
        JSON.parse(readFileSync(require.resolve(`${dependency}/package.json`), 'utf8')) as {
          version?: unknown;
        }
      ).version;
      hasher.update(`${dependency}@${String(version)}\0`);
    }
    fingerprint = hasher.digest('hex');
  } catch {
    fingerprint = null;
  }
  return fingerprint;
}
