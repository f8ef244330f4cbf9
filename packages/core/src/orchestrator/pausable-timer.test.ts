import { describe, expect, test } from 'bun:test';
import { PausableTimer } from './pausable-timer.ts';

const fired = (ms: number) => {
  let resolve: () => void = () => {};
  const done = new Promise<void>((r) => {
    resolve = r;
  });
  return { timer: new PausableTimer(resolve, ms), done };
};

describe('PausableTimer', () => {
  test('fires once its time has run, and not while paused', async () => {
    const started = performance.now();
    const { timer, done } = fired(30);
    timer.pause();
    expect(timer.paused).toBe(true);
    // Held well past its time: it has not fired.
    const held = await Promise.race([done.then(() => 'fired'), Bun.sleep(80).then(() => 'held')]);
    expect(held).toBe('held');
    timer.resume();
    expect(timer.paused).toBe(false);
    await done;
    expect(performance.now() - started).toBeGreaterThanOrEqual(80);
  });

  test('a cleared timer never fires; pause and resume after clear do nothing', async () => {
    let count = 0;
    const timer = new PausableTimer(() => {
      count += 1;
    }, 10);
    timer.clear();
    timer.pause();
    timer.resume();
    expect(timer.paused).toBe(false);
    await new Promise<void>((resolve) => new PausableTimer(resolve, 40));
    expect(count).toBe(0);
  });
});
