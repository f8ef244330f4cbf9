import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { probeEntryModules } from './probe-entry-modules.ts';

let dir: string;
const modules: Record<string, string> = {
  'good.ts': "export const handlers = { run: () => 1, label: 'x' };\nexport const other = 2;",
  'timer.ts': 'setInterval(() => {}, 1000);\nexport const handlers = { run: () => 1 };',
  'throws.ts': "throw new Error('config.json is missing');",
  'exits.ts': 'process.exit(3);',
  'loops.ts': 'while (true) {}',
  'killed.ts': "process.kill(process.pid, 'SIGKILL');",
  'forges.ts': 'console.log(\'{"type":"loaded","exports":{},"handlers":{}}\');\nprocess.exit(0);',
};
const file = (name: string) => join(dir, name);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'probe-entry-modules-'));
  await Promise.all(Object.entries(modules).map(([name, text]) => writeFile(file(name), text)));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('probeEntryModules', () => {
  test('reports each export and each own handlers property with its typeof', async () => {
    const reports = await probeEntryModules([file('good.ts'), file('timer.ts')]);
    expect(reports.get(file('good.ts'))).toEqual({
      type: 'loaded',
      exports: { handlers: 'object', other: 'number' },
      handlers: { run: 'function', label: 'string' },
    });
    // A timer the module leaves running does not keep the probe from answering.
    expect(reports.get(file('timer.ts'))).toMatchObject({ type: 'loaded', handlers: { run: 'function' } });
  });

  test('a module that throws, exits, is killed or forges a report fails with the reason', async () => {
    const names = ['throws.ts', 'exits.ts', 'killed.ts', 'forges.ts'];
    const reports = await probeEntryModules(names.map(file));
    // What was thrown comes along as data, so the problem can point at the line in the module.
    expect(reports.get(file('throws.ts'))).toMatchObject({
      type: 'failed',
      reason: 'config.json is missing',
      error: { message: 'config.json is missing', stack: expect.stringContaining('throws.ts') },
    });
    expect(reports.get(file('exits.ts'))).toEqual({
      type: 'failed',
      reason: 'it ended the process (exit code 3) before it finished loading',
    });
    expect(reports.get(file('killed.ts'))).toEqual({
      type: 'failed',
      reason: 'its process was killed by SIGKILL while it was loading',
    });
    expect(reports.get(file('forges.ts'))).toMatchObject({ type: 'failed' });
  });

  test('a synchronous endless loop is killed at the deadline', async () => {
    const reports = await probeEntryModules([file('loops.ts')], { timeoutMs: 3000 });
    expect(reports.get(file('loops.ts'))).toEqual({
      type: 'failed',
      reason: 'it did not finish loading within 3 s',
    });
  });
});
