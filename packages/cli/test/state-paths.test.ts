import { Database } from 'bun:sqlite';
import { afterAll, describe, expect, test } from 'bun:test';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { agentBundle, cleanupTempDirs, gdn, makeTempDir } from './helpers.ts';

afterAll(cleanupTempDirs);

/** The three lines every coded failure prints, and no stack trace. */
function expectCoded(stderr: string, code: string): void {
  expect(stderr).toContain(code);
  expect(stderr).toContain('  suggestion: ');
  expect(stderr).toContain(`/docs/errors/${code}.md`);
  expect(stderr).not.toContain('unexpected failure');
  expect(stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
}

describe('a file or directory the command cannot make', () => {
  test('.goondan being a file: gdn run and gdn tools call say E_PATH_ACCESS with the path, not a stack trace', async () => {
    const bundle = await agentBundle();
    await writeFile(join(bundle, '.goondan'), 'not a directory\n');
    for (const args of [
      ['run', '--bundle', bundle, '--input', 'hi'],
      ['tools', 'call', '--bundle', bundle, 'calc__add', '{"a":1,"b":2}'],
    ]) {
      const result = await gdn(args);
      expect(result.exitCode).toBe(1);
      expectCoded(result.stderr, 'E_PATH_ACCESS');
      expect(result.stderr).toContain(join(bundle, '.goondan'));
      expect(result.stderr).toContain('(ENOTDIR)');
    }
  });

  test('gdn init into a path that is a file says E_PATH_ACCESS', async () => {
    const dir = await makeTempDir();
    const file = join(dir, 'taken');
    await writeFile(file, 'mine\n');
    const result = await gdn(['init', file]);
    expect(result.exitCode).toBe(1);
    expectCoded(result.stderr, 'E_PATH_ACCESS');
    expect(result.stderr).toContain(file);
    expect(await Bun.file(file).text()).toBe('mine\n');
  });
});

describe('numbers too large to be exact', () => {
  test('--limit beyond 2^53 is a usage error (exit 2), for trace and audit alike', async () => {
    const bundle = await agentBundle();
    for (const command of ['trace', 'audit']) {
      const result = await gdn([command, '--bundle', bundle, '--limit', '9223372036854775807']);
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain("--limit must be a positive integer, got '9223372036854775807'");
      expect(result.stderr).toContain('code: E_CLI_USAGE');
      expect(result.stderr).not.toContain('SQLite');
    }
  });

  test('a schedule 99,999,999,999 days ahead is E_SCHEDULE_INVALID, and nothing is stored', async () => {
    const bundle = await agentBundle();
    const result = await gdn(['schedules', 'add', '--bundle', bundle, '--in', '99999999999d', '--input', 'x']);
    expect(result.exitCode).toBe(1);
    expectCoded(result.stderr, 'E_SCHEDULE_INVALID');
    expect(result.stderr).toContain('year 275760');
    const listed = await gdn(['schedules', 'list', '--bundle', bundle, '--json']);
    expect(listed.exitCode).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([]);
  });
});

describe("another program's database in the instance's place", () => {
  test('gdn run says E_STORE_CORRUPT and leaves the file alone', async () => {
    const bundle = await agentBundle();
    const first = await gdn(['run', '--bundle', bundle, '--input', 'hi']);
    expect(first.exitCode).toBe(0);
    const { stdout } = await gdn(['trace', '--bundle', bundle, '--json']);
    expect(stdout.length).toBeGreaterThan(0);
    const glob = new Bun.Glob('.goondan/**/state.db');
    const [relative] = [...glob.scanSync({ cwd: bundle, dot: true })];
    expect(relative).toBeDefined();
    const path = join(bundle, relative!);
    await Promise.all(
      ['', '-wal', '-shm'].map((suffix) =>
        Bun.file(`${path}${suffix}`)
          .delete()
          .catch(() => {}),
      ),
    );
    const foreign = new Database(path);
    foreign.run('CREATE TABLE conversation_events (x)');
    foreign.close();
    const result = await gdn(['run', '--bundle', bundle, '--input', 'again']);
    expect(result.exitCode).toBe(1);
    expectCoded(result.stderr, 'E_STORE_CORRUPT');
    expect(result.stderr).toContain('already exists');
  });
});

/** Whether this file system and user can make a file immutable (chattr +i: even root cannot write it then). */
async function immutable(path: string, on: boolean): Promise<boolean> {
  const chattr = Bun.which('chattr');
  if (!chattr) return false;
  const proc = Bun.spawn([chattr, on ? '+i' : '-i', path], { stdout: 'ignore', stderr: 'ignore' });
  return (await proc.exited) === 0;
}

describe('an instance database that cannot be written', () => {
  test('gdn run says E_STORE_OPEN with the path (it was a stack trace from the first write)', async () => {
    const bundle = await agentBundle();
    expect((await gdn(['run', '--bundle', bundle, '--input', 'hi'])).exitCode).toBe(0);
    const [relative] = [...new Bun.Glob('.goondan/**/state.db').scanSync({ cwd: bundle, dot: true })];
    const path = join(bundle, relative!);
    // Where the file system has no immutable flag (or chattr is missing) there is nothing to check.
    if (!(await immutable(path, true))) return;
    try {
      const result = await gdn(['run', '--bundle', bundle, '--input', 'again']);
      expect(result.exitCode).toBe(1);
      expectCoded(result.stderr, 'E_STORE_OPEN');
      expect(result.stderr).toContain(path);
      expect(result.stderr).not.toContain('unexpected failure');
    } finally {
      await immutable(path, false);
    }
  });
});
