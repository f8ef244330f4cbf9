import { afterAll, expect, test } from 'bun:test';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { compileCachedValidator } from './cached-validator.ts';
import { resourceSchema } from './resource-schemas.ts';

const cacheDir = mkdtempSync(join(tmpdir(), 'gdn-validator-cache-'));
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

const ajv = new Ajv({ allErrors: true, verbose: true, allowUnionTypes: true, code: { source: true } });
const schema = resourceSchema('Agent') as Record<string, unknown>;
const bad = { apiVersion: 'goondan.ai/v1', kind: 'Agent', metadata: { name: 'a' }, spec: { modelConfig: 3 } };
const good = {
  apiVersion: 'goondan.ai/v1',
  kind: 'Agent',
  metadata: { name: 'a' },
  spec: { modelConfig: { modelRef: 'Model/m' } },
};

test('a validator read back from the cache answers exactly as the compiled one, errors included', () => {
  const compiled = compileCachedValidator({ ajv, schema, name: 'test', cacheDir });
  expect(readdirSync(cacheDir)).toHaveLength(1);
  const cached = compileCachedValidator({ ajv, schema, name: 'test', cacheDir });
  expect(cached).not.toBe(compiled);
  expect([cached(good), cached(bad)]).toEqual([compiled(good), compiled(bad)]);
  expect(cached.errors).toEqual(compiled.errors);
  expect(cached.errors?.[0]?.parentSchema).toEqual(compiled.errors?.[0]?.parentSchema as object);
});

test('a corrupt entry is compiled again and replaced', () => {
  compileCachedValidator({ ajv, schema, name: 'corrupt', cacheDir });
  const entry = readdirSync(cacheDir).find((name) => name.endsWith('.cjs'))!;
  for (const text of ['module.exports = ', 'module.exports.default = 42;']) {
    for (const name of readdirSync(cacheDir)) writeFileSync(join(cacheDir, name), text);
    const validate = compileCachedValidator({ ajv, schema, name: 'corrupt', cacheDir });
    expect(validate(bad)).toBe(false);
    expect(validate(good)).toBe(true);
  }
  expect(readdirSync(cacheDir)).toContain(entry);
});
