import { describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GoondanError } from '../errors/goondan-error.ts';
import { findBundleDir } from './find-bundle-dir.ts';

const good = join(import.meta.dir, '__fixtures__', 'good');

describe('findBundleDir', () => {
  test('returns the start directory when it holds goondan.yaml', () => {
    expect(findBundleDir(good)).toBe(good);
  });

  test('walks up from a subdirectory to the nearest goondan.yaml', () => {
    expect(findBundleDir(join(good, 'tools'))).toBe(good);
  });

  test('throws E_BUNDLE_NOT_FOUND when no directory up to the root has goondan.yaml', () => {
    const empty = mkdtempSync(join(tmpdir(), 'goondan-no-bundle-'));
    let thrown: unknown;
    try {
      findBundleDir(empty);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(GoondanError);
    expect((thrown as GoondanError).code).toBe('E_BUNDLE_NOT_FOUND');
    expect((thrown as GoondanError).message).toContain(empty);
    rmSync(empty, { recursive: true, force: true });
  });
});
