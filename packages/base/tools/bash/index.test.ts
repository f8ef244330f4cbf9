import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ToolContext } from '@goondan/core';
import { createTestToolContext } from '@goondan/core/testing';
import { cleanup, errorCodeOf, makeTempDir } from '../../test/helpers.ts';
import { handlers, MAX_OUTPUT_BYTES } from './index.ts';

let workdir: string;
let outsideDir: string;

beforeAll(async () => {
  workdir = await makeTempDir();
  outsideDir = await makeTempDir();
});
afterAll(() => cleanup(workdir, outsideDir));

interface Result {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  truncated: boolean;
  timedOut: boolean;
  durationMs: number;
}

const exec = (ctx: ToolContext, input: Record<string, unknown>) => handlers.exec!(ctx, input) as Promise<Result>;
const script = (ctx: ToolContext, input: Record<string, unknown>) => handlers.script!(ctx, input) as Promise<Result>;

/** Processes whose command line contains `marker` (pgrep -f). */
function running(marker: string): string {
  return Bun.spawnSync(['pgrep', '-f', marker]).stdout.toString().trim();
}

/** A `sleep` argument no other test or process uses, so pgrep finds only ours. */
function uniqueSleep(): string {
  return `31.${Math.floor(Math.random() * 1_000_000)
    .toString()
    .padStart(6, '0')}1`;
}

describe('bash__exec', () => {
  test('returns stdout, stderr and the exit code; a non-zero exit is data', async () => {
    const ctx = createTestToolContext({ workdir });
    const ok = await exec(ctx, { command: 'echo hello; echo oops >&2' });
    expect(ok).toMatchObject({
      exitCode: 0,
      signal: null,
      stdout: 'hello\n',
      stderr: 'oops\n',
      truncated: false,
      timedOut: false,
    });
    expect(ok.durationMs).toBeGreaterThanOrEqual(0);
    const failed = await exec(ctx, { command: 'exit 3' });
    expect(failed.exitCode).toBe(3);
    const missing = await exec(ctx, { command: 'no-such-command-xyz' });
    expect(missing.exitCode).toBe(127);
  });

  test('runs with cwd = ctx.workdir (spec §2.5.2)', async () => {
    const result = await exec(createTestToolContext({ workdir }), { command: 'pwd -P; touch made-here' });
    expect(result.stdout.trim()).toBe(workdir);
    expect(await Bun.file(join(workdir, 'made-here')).exists()).toBe(true);
  });

  test('timeout kills the whole process group, grandchildren included', async () => {
    const seconds = uniqueSleep();
    const result = await exec(createTestToolContext({ workdir }), {
      command: `echo started; sleep ${seconds} & sleep ${seconds}; wait`,
      timeoutMs: 300,
    });
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(result.signal).toBe('SIGKILL');
    expect(result.stdout).toBe('started\n');
    expect(result.durationMs).toBeLessThan(20_000); // the sleeps would take 31 s
    expect(running(`sleep ${seconds}`)).toBe('');
  });

  test('aborting ctx.signal kills the whole process group', async () => {
    const seconds = uniqueSleep();
    const controller = new AbortController();
    const ctx = createTestToolContext({ workdir, signal: controller.signal });
    const started = performance.now();
    const call = exec(ctx, { command: `sleep ${seconds} & sleep ${seconds}; wait` });
    // Until the shell has started its sleeps (a busy machine takes longer than any fixed wait).
    for (const deadline = Date.now() + 15_000; running(`sleep ${seconds}`) === '' && Date.now() < deadline; )
      await Bun.sleep(20);
    expect(running(`sleep ${seconds}`)).not.toBe('');
    controller.abort();
    expect(await errorCodeOf(call)).toBe('E_TOOL_ABORTED');
    expect(performance.now() - started).toBeLessThan(20_000); // the sleeps would take 31 s
    expect(running(`sleep ${seconds}`)).toBe('');
  });

  test('an already aborted signal starts nothing', async () => {
    const ctx = createTestToolContext({ workdir, signal: AbortSignal.abort() });
    expect(await errorCodeOf(exec(ctx, { command: 'touch should-not-exist' }))).toBe('E_TOOL_ABORTED');
    expect(await Bun.file(join(workdir, 'should-not-exist')).exists()).toBe(false);
  });

  test('background jobs do not outlive the call', async () => {
    const seconds = uniqueSleep();
    const result = await exec(createTestToolContext({ workdir }), { command: `sleep ${seconds} & echo left-behind` });
    expect(result.stdout).toBe('left-behind\n');
    expect(result.durationMs).toBeLessThan(20_000); // the sleeps would take 31 s
    expect(running(`sleep ${seconds}`)).toBe('');
  });

  describe('setsid children (a session of their own) do not outlive the call', () => {
    /** Waits until no process runs `sleep seconds`; the escapee is killed, then reaped by whoever adopted it. */
    async function gone(seconds: string): Promise<string> {
      const deadline = Date.now() + 30_000;
      while (running(`sleep ${seconds}`) !== '' && Date.now() < deadline) await Bun.sleep(20);
      return running(`sleep ${seconds}`);
    }

    test('when the command ends', async () => {
      const seconds = uniqueSleep();
      // It ends only once the escapee has its own session, so killing the group alone cannot reach it.
      const result = await exec(createTestToolContext({ workdir }), {
        command: `setsid sh -c 'touch escaped-${seconds}; exec sleep ${seconds}' > /dev/null 2>&1 & while [ ! -e escaped-${seconds} ]; do sleep 0.01; done; echo escaped`,
      });
      expect(result.stdout).toBe('escaped\n');
      expect(await gone(seconds)).toBe('');
    });

    test('when the command times out', async () => {
      const seconds = uniqueSleep();
      const result = await exec(createTestToolContext({ workdir }), {
        command: `setsid sleep ${seconds} & sleep ${seconds}`,
        timeoutMs: 500,
      });
      expect(result.timedOut).toBe(true);
      expect(await gone(seconds)).toBe('');
    });

    test('when the command times out, one that also cleared its environment (env -i setsid) included', async () => {
      const seconds = uniqueSleep();
      const result = await exec(createTestToolContext({ workdir }), {
        command: `env -i setsid sleep ${seconds} & sleep ${seconds}`,
        timeoutMs: 500,
      });
      expect(result.timedOut).toBe(true);
      expect(await gone(seconds)).toBe('');
    });

    test('when the call is aborted', async () => {
      const seconds = uniqueSleep();
      const controller = new AbortController();
      const ctx = createTestToolContext({ workdir, signal: controller.signal });
      const marker = join(workdir, `escaped-${seconds}`);
      const call = exec(ctx, { command: `setsid sleep ${seconds} & touch ${marker}; sleep ${seconds}` });
      const deadline = Date.now() + 30_000;
      while (!(await Bun.file(marker).exists()) && Date.now() < deadline) await Bun.sleep(20);
      expect(running(`sleep ${seconds}`)).not.toBe('');
      controller.abort();
      expect(await errorCodeOf(call)).toBe('E_TOOL_ABORTED');
      expect(await gone(seconds)).toBe('');
    });
  });

  test('huge output is capped, the head kept, and the child is not blocked', async () => {
    const result = await exec(createTestToolContext({ workdir }), {
      command: "head -c 3000000 /dev/zero | tr '\\0' a; head -c 200000 /dev/zero | tr '\\0' b >&2; echo done >&2",
    });
    expect(result.exitCode).toBe(0);
    expect(result.truncated).toBe(true);
    expect(result.stdout.length).toBe(MAX_OUTPUT_BYTES);
    expect(result.stdout).toMatch(/^a+$/);
    expect(result.stderr.length).toBe(MAX_OUTPUT_BYTES);
  });

  test('a multi-byte character cut by the cap is dropped, not mangled', async () => {
    // 'ü' is 2 bytes; an odd prefix puts a character across the cap.
    const result = await exec(createTestToolContext({ workdir }), {
      command: `printf x; i=0; while [ $i -lt 40000 ]; do printf 'üüüüüüüüüü'; i=$((i+10)); done`,
    });
    expect(result.truncated).toBe(true);
    expect(result.stdout.includes('\uFFFD')).toBe(false);
    expect(Buffer.byteLength(result.stdout)).toBe(MAX_OUTPUT_BYTES - 1);
  });

  test('the environment is scrubbed of secrets; PATH and HOME stay', async () => {
    process.env.FAKE_API_KEY = 'sk-should-not-leak';
    process.env.OPENAI_ORG = 'org-should-not-leak';
    process.env.PLAIN_SETTING = 'visible';
    try {
      const result = await exec(createTestToolContext({ workdir }), {
        command: 'echo "key=$FAKE_API_KEY org=$OPENAI_ORG plain=$PLAIN_SETTING"; echo "path=$PATH"; env',
      });
      const [first, second] = result.stdout.split('\n');
      expect(first).toBe('key= org= plain=visible');
      expect(second).toBe(`path=${process.env.PATH}`);
      expect(result.stdout).not.toContain('should-not-leak');
    } finally {
      delete process.env.FAKE_API_KEY;
      delete process.env.OPENAI_ORG;
      delete process.env.PLAIN_SETTING;
    }
  });
});

describe('bash__script', () => {
  test('runs a script inside the workdir with arguments, cwd = workdir', async () => {
    await mkdir(join(workdir, 'scripts'), { recursive: true });
    await writeFile(join(workdir, 'scripts', 'hello.sh'), 'echo "args: $1 $2"; pwd -P\n');
    const result = await script(createTestToolContext({ workdir }), { path: 'scripts/hello.sh', args: ['a b', 'c'] });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(`args: a b c\n${workdir}\n`);
  });

  test('uses the interpreter and argument of the #! line, without needing the execute bit', async () => {
    await writeFile(join(workdir, 'strict.sh'), '#!/bin/sh -e\nfalse\necho not reached\n');
    await chmod(join(workdir, 'strict.sh'), 0o644);
    const result = await script(createTestToolContext({ workdir }), { path: 'strict.sh' });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
  });

  test('a missing interpreter is E_BASH_SPAWN', async () => {
    await writeFile(join(workdir, 'broken.sh'), '#!/no/such/interpreter\necho hi\n');
    expect(await errorCodeOf(script(createTestToolContext({ workdir }), { path: 'broken.sh' }))).toBe('E_BASH_SPAWN');
  });

  test('scripts outside the workdir are refused', async () => {
    const ctx = createTestToolContext({ workdir });
    await writeFile(join(outsideDir, 'evil.sh'), 'echo evil\n');
    const outsideName = outsideDir.split('/').pop()!;
    expect(await errorCodeOf(script(ctx, { path: `../${outsideName}/evil.sh` }))).toBe('E_PATH_OUTSIDE_WORKDIR');
    expect(await errorCodeOf(script(ctx, { path: join(outsideDir, 'evil.sh') }))).toBe('E_PATH_OUTSIDE_WORKDIR');
    await symlink(join(outsideDir, 'evil.sh'), join(workdir, 'innocent.sh'));
    expect(await errorCodeOf(script(ctx, { path: 'innocent.sh' }))).toBe('E_PATH_OUTSIDE_WORKDIR');
  });

  test('a missing script is E_FILE_NOT_FOUND', async () => {
    expect(await errorCodeOf(script(createTestToolContext({ workdir }), { path: 'nope.sh' }))).toBe('E_FILE_NOT_FOUND');
  });
});
