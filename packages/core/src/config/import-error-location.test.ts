import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { importErrorLocation } from './import-error-location.ts';

const dir = join(import.meta.dir, '__fixtures__', 'bad-imports');

async function locate(file: string) {
  const thrown = await import(join(dir, file)).then(
    () => null,
    (error: unknown) => error,
  );
  expect(thrown).not.toBeNull();
  return importErrorLocation(thrown, dir);
}

describe('importErrorLocation', () => {
  test('a syntax error: the file, line and column Bun reports', async () => {
    expect(await locate('syntax.js')).toEqual({ file: join(dir, 'syntax.js'), line: 3, column: 25 });
  });

  test('an import of a missing module: the line that imports it', async () => {
    expect(await locate('unresolved.js')).toEqual({ file: join(dir, 'unresolved.js'), line: 2, column: 22 });
  });

  test('an error thrown by the top level: its frame inside the bundle', async () => {
    expect(await locate('throws.ts')).toEqual({ file: join(dir, 'throws.ts'), line: 3, column: 11 });
  });

  test('nothing to go on: null', () => {
    expect(importErrorLocation('plain string', dir)).toBeNull();
    expect(importErrorLocation(new Error('no frames here'), '/elsewhere')).toBeNull();
  });
});
