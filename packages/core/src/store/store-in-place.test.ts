import { afterEach, describe, expect, test } from 'bun:test';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GoondanError } from '../errors/goondan-error.ts';
import { watchStoreInPlace } from './store-in-place.ts';
import { createTempDirs } from './test-support.ts';

const temp = createTempDirs();
afterEach(() => temp.cleanup());

function thrownBy(check: () => void): GoondanError | undefined {
  try {
    check();
  } catch (thrown) {
    return thrown as GoondanError;
  }
  return undefined;
}

describe('watchStoreInPlace', () => {
  test('passes while the files are the ones opened, also after they were written to', () => {
    const dir = temp.make();
    const file = join(dir, 'state.db');
    writeFileSync(file, 'a');
    const check = watchStoreInPlace('assistant/default', [file]);
    writeFileSync(file, 'more');
    expect(thrownBy(check)).toBeUndefined();
  });

  test('a file deleted under the process is E_STORE_REMOVED naming it', () => {
    const dir = temp.make();
    const file = join(dir, 'state.db');
    writeFileSync(file, 'a');
    const check = watchStoreInPlace('assistant/default', [file]);
    rmSync(dir, { recursive: true });
    const error = thrownBy(check);
    expect(error).toBeInstanceOf(GoondanError);
    expect(error?.code).toBe('E_STORE_REMOVED');
    expect(error?.message).toContain(`${file} is gone`);
    expect(error?.message).toContain('assistant/default');
  });

  test('a file replaced by another (a new process made it afresh) is E_STORE_REMOVED too', () => {
    const dir = temp.make();
    const lock = join(dir, 'writer.lock');
    writeFileSync(lock, 'a');
    const check = watchStoreInPlace('assistant/default', [join(dir, 'state.db'), lock]);
    writeFileSync(join(dir, 'other'), 'b');
    renameSync(join(dir, 'other'), lock);
    expect(thrownBy(check)?.message).toContain(`${lock} is another file now`);
  });
});
