import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { yamlLimits } from './parse-yaml-documents.ts';
import { readSourceText } from './read-source-text.ts';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'read-source-text-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readSourceText', () => {
  test('reads a regular file, also through a symlink', async () => {
    await writeFile(join(dir, 'goondan.yaml'), 'kind: Tool\n');
    await symlink(join(dir, 'goondan.yaml'), join(dir, 'linked.yaml'));
    expect(readSourceText(join(dir, 'goondan.yaml'))).toBe('kind: Tool\n');
    expect(readSourceText(join(dir, 'linked.yaml'))).toBe('kind: Tool\n');
  });

  test('leaves out a file over the loader limit without reading it (a sparse file of any size)', async () => {
    const file = join(dir, 'huge.yaml');
    await writeFile(file, '');
    await truncate(file, 3 * 1024 * 1024 * 1024);
    expect(readSourceText(file)).toBeUndefined();
    await truncate(file, yamlLimits.maxBytes);
    expect(readSourceText(file)?.length).toBe(yamlLimits.maxBytes);
  });

  test('leaves out a FIFO without blocking, a directory and a missing file', () => {
    const fifo = join(dir, 'fifo.yaml');
    expect(Bun.spawnSync(['mkfifo', fifo]).exitCode).toBe(0);
    expect(readSourceText(fifo)).toBeUndefined();
    expect(readSourceText(dir)).toBeUndefined();
    expect(readSourceText(join(dir, 'missing.yaml'))).toBeUndefined();
  });

  test('leaves out a character device reached through a symlink', async () => {
    await symlink('/dev/zero', join(dir, 'zero.yaml'));
    expect(readSourceText(join(dir, 'zero.yaml'))).toBeUndefined();
  });
});
