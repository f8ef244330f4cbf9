import { describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorCodes } from './error-codes.ts';

const docs = join(import.meta.dir, '..', '..', '..', '..', 'docs', 'errors');

describe('error codes', () => {
  test.each(Object.keys(errorCodes))('%s has a page in docs/errors that names it', (code) => {
    const page = join(docs, `${code}.md`);
    expect(existsSync(page)).toBe(true);
    expect(readFileSync(page, 'utf8')).toContain(code);
  });

  test('every code has a name and a non-empty suggestion (spec §2.4.4)', () => {
    for (const [code, entry] of Object.entries(errorCodes)) {
      expect(code).toMatch(/^E_[A-Z0-9_]+$/);
      expect(entry.name).toMatch(/Error$/);
      expect(entry.suggestion.length).toBeGreaterThan(10);
    }
  });
});
