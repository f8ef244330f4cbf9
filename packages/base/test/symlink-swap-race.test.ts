import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JsonObject, ToolContext } from '@goondan/core';
import { createTestToolContext } from '@goondan/core/testing';
import { handlers } from '../tools/file-system/index.ts';
import { cleanup, makeTempDir, snapshotTree } from './helpers.ts';

/** Rounds of every operation raced against the swapper; each round is a dozen tool calls. */
const ROUNDS = 300;
const swapLoop = join(import.meta.dir, '__fixtures__', 'swap-loop.ts');

let workdir: string;
let outsideDir: string;
let ctx: ToolContext;

async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  let text = '';
  while (!text.includes('\n')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return text.trim();
}

beforeAll(async () => {
  workdir = await makeTempDir();
  outsideDir = await makeTempDir();
  ctx = createTestToolContext({ workdir, config: { confirmAbove: 1000 } });
  await mkdir(join(workdir, 'd/sub'), { recursive: true });
  await writeFile(join(workdir, 'd/f.txt'), 'inside colour');
  await writeFile(join(workdir, 'd/sub/g.txt'), 'inside colour');
  await mkdir(join(outsideDir, 'sub'));
  await writeFile(join(outsideDir, 'f.txt'), 'OUTSIDE colour');
  await writeFile(join(outsideDir, 'sub/g.txt'), 'OUTSIDE colour');
  await writeFile(join(outsideDir, 'sub/outside-only.txt'), 'OUTSIDE colour');
});
afterAll(() => cleanup(workdir, outsideDir));

/** One round: every operation on a path under `d`, the directory being flipped to a link and back. */
const round: [string, JsonObject][] = [
  ['read', { path: 'd/f.txt' }],
  ['read', { path: 'd/sub/g.txt' }],
  ['list', { path: 'd/sub', recursive: true }],
  ['write', { path: 'd/w.txt', content: 'planted' }],
  ['write', { path: 'd/m/n/x.txt', content: 'planted' }],
  ['write', { path: 'd/f.txt', content: 'inside colour' }],
  ['replace', { path: 'd/f.txt', find: 'colour', replace: 'paint' }],
  ['replace', { path: 'd/sub', find: 'colour', replace: 'paint' }],
  ['write', { path: 'd/sub/g.txt', content: 'inside colour' }],
  ['delete', { paths: ['d/f.txt'] }],
  ['delete', { glob: 'd/sub/*.txt' }],
  ['delete', { paths: ['d/m'], recursive: true }],
];

describe('file-system confinement against a directory flipped to a symbolic link in a tight loop', () => {
  test('across every attempt nothing outside is read, written, created or deleted', async () => {
    const before = snapshotTree(outsideDir);
    const swapper = Bun.spawn([process.execPath, swapLoop, workdir, outsideDir, '300'], {
      stdout: 'pipe',
      stderr: 'inherit',
    });
    const leaks: string[] = [];
    let succeeded = 0;
    try {
      expect(await firstLine(swapper.stdout)).toBe('swapping');
      // On a loaded machine the swapper can be off the CPU with `d` a link for the whole of ROUNDS: every call is
      // then (rightly) refused. Rounds go on until some call got through too, within a deadline.
      const deadline = Date.now() + 30_000;
      for (let attempt = 0; attempt < ROUNDS || (succeeded === 0 && Date.now() < deadline); attempt++) {
        for (const [name, input] of round) {
          try {
            const result = JSON.stringify(await handlers[name]!(ctx, input));
            succeeded += 1;
            if (result.includes('OUTSIDE') || result.includes('outside-only')) leaks.push(`${name}: ${result}`);
          } catch {
            // Refused or not found while `d` was away: fine, as long as nothing leaked.
          }
        }
      }
    } finally {
      swapper.kill();
      await swapper.exited;
    }
    expect(leaks).toEqual([]);
    expect(snapshotTree(outsideDir)).toEqual(before);
    expect(succeeded).toBeGreaterThan(0);
  });
});
