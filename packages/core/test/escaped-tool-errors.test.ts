// Errors that escape a tool handler's awaits (its own timer, a promise it did not await) with guardProcessErrors
// installed: the process survives and the running call fails with E_TOOL. A real process, since such errors are
// process-wide (bun test would claim them itself).
import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';

const main = join(import.meta.dir, '__fixtures__', 'escaped-errors-main.ts');

describe('errors escaping a tool handler (docs/writing-a-tool.md)', () => {
  test('fail the running call with E_TOOL, are logged after it finished, and never end the process', async () => {
    const child = Bun.spawn([process.execPath, main], { stdout: 'pipe', stderr: 'pipe' });
    const [stdout, stderr, exitCode] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    expect({ exitCode, stderr }).toMatchObject({ exitCode: 0 });
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({
      name: 'escape__timer',
      result: { status: 'error', error: { code: 'E_TOOL', message: expect.stringContaining('thrown in a timer') } },
    });
    expect(lines[1]).toMatchObject({
      name: 'escape__rejection',
      result: {
        status: 'error',
        error: { code: 'E_TOOL', message: expect.stringContaining('rejected and not awaited') },
      },
    });
    expect(lines[2]).toMatchObject({
      name: 'escape__exit',
      result: {
        status: 'error',
        error: { code: 'E_TOOL', message: expect.stringContaining('a tool may not end the process') },
      },
    });
    expect(lines[3]).toMatchObject({
      name: 'escape__late',
      result: { status: 'ok', output: 'done' },
      logged: expect.stringContaining('escape__late (call late) after it finished'),
    });
    expect(lines[4]).toEqual({ alive: true });
    expect(stderr).toContain('Uncaught exception in tool escape__timer (call escape__timer), which fails with E_TOOL');
  }, 60_000);
});
