import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { startDeadline } from './deadline-timers.ts';

describe('startDeadline', () => {
  test('deadlines of one length expire in the order they started; a cancelled one never does', async () => {
    const expired: string[] = [];
    let lastExpired: () => void = () => {};
    const allExpired = new Promise<void>((resolve) => {
      lastExpired = resolve;
    });
    startDeadline(15, () => expired.push('a'));
    const b = startDeadline(15, () => expired.push('b'));
    startDeadline(15, () => {
      expired.push('c');
      lastExpired();
    });
    b.cancel();
    b.cancel();
    await allExpired;
    expect(expired).toEqual(['a', 'c']);
  });

  test('after a lane emptied, the next deadline of that length still expires (its timer is reused or set again)', async () => {
    for (let round = 0; round < 3; round += 1) {
      startDeadline(12, () => {}).cancel();
      const started = performance.now();
      await new Promise<void>((resolve) => startDeadline(12, resolve));
      expect(performance.now() - started).toBeGreaterThanOrEqual(10);
    }
  });

  test('one that throws does not stop the others of its length', async () => {
    const done = new Promise<string>((resolve) => {
      startDeadline(11, () => {
        throw new Error('boom');
      });
      startDeadline(11, () => resolve('second'));
    });
    expect(await done).toBe('second');
  });

  test('a settled deadline does not keep the process up; a waiting one does', async () => {
    const module = join(import.meta.dir, 'deadline-timers.ts');
    const run = async (script: string) => {
      const child = Bun.spawn([process.execPath, '-e', script], { stdout: 'pipe', stderr: 'inherit' });
      const exitCode = await child.exited;
      return { exitCode, stdout: await new Response(child.stdout).text() };
    };
    // Cancelled: the process ends at once, not after the minute the deadline was for.
    const settled = await run(
      `const { startDeadline } = await import(${JSON.stringify(module)});
       startDeadline(60_000, () => console.log('fired')).cancel();
       console.log('done');`,
    );
    expect(settled).toEqual({ exitCode: 0, stdout: 'done\n' });
    // Waiting: the process stays up until it expires.
    const waiting = await run(
      `const { startDeadline } = await import(${JSON.stringify(module)});
       startDeadline(60_000, () => {}).cancel();
       startDeadline(50, () => console.log('fired'));`,
    );
    expect(waiting).toEqual({ exitCode: 0, stdout: 'fired\n' });
  });

  test('a deadline longer than a timer can wait (a Tool timeoutMs of 1e10) arms at most 2^31 - 1 ms, not 1 ms', () => {
    const delays: (number | undefined)[] = [];
    const original = globalThis.setTimeout;
    const spy = ((handler: () => void, delay?: number) => {
      delays.push(delay);
      return original(handler, delay);
    }) as typeof setTimeout;
    globalThis.setTimeout = spy;
    try {
      startDeadline(10_000_000_000, () => {}).cancel();
    } finally {
      globalThis.setTimeout = original;
    }
    expect(delays).toHaveLength(1);
    expect(delays[0]).toBeGreaterThan(2 ** 31 - 2);
    expect(delays[0]).toBeLessThanOrEqual(2 ** 31 - 1);
  });
});
