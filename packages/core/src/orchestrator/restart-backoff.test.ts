import { describe, expect, test } from 'bun:test';
import { defaultRestartPolicy, restartDelay } from './restart-backoff.ts';

describe('restartDelay', () => {
  test('doubles per crash in a row and stops at the cap', () => {
    const delays = [1, 2, 3, 4, 10, 20].map((attempt) => restartDelay(attempt, defaultRestartPolicy));
    expect(delays).toEqual([200, 400, 800, 1600, 30_000, 30_000]);
  });
});
