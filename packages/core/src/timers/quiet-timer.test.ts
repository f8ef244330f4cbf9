import { describe, expect, test } from 'bun:test';
import { QuietTimer } from './quiet-timer.ts';

describe('QuietTimer', () => {
  test('runs once the pokes stop for quietMs; pokes meanwhile push it back', async () => {
    let ran = 0;
    const done = new Promise<void>((resolve) => {
      const timer = new QuietTimer({
        quietMs: 15,
        onQuiet: () => {
          ran += 1;
          resolve();
        },
      });
      timer.poke();
      timer.poke();
    });
    const started = performance.now();
    await done;
    expect(ran).toBe(1);
    expect(performance.now() - started).toBeGreaterThanOrEqual(13);
  });

  test('while pokes go on, it runs maxDelayMs after the first; cancel forgets them', async () => {
    let ran = 0;
    const timer = new QuietTimer({
      quietMs: 1e9,
      maxDelayMs: 20,
      onQuiet: () => {
        ran += 1;
      },
    });
    const started = performance.now();
    timer.poke();
    while (ran === 0) {
      timer.poke();
      await Bun.sleep(1);
    }
    expect(performance.now() - started).toBeGreaterThanOrEqual(19);
    timer.poke();
    timer.cancel();
    await Bun.sleep(40);
    expect(ran).toBe(1);
  });
});
