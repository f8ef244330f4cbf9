import { describe, expect, test } from 'bun:test';
import { settlesWithin } from './settles-within.ts';

describe('settlesWithin', () => {
  test('a promise that is fulfilled or rejected in time is true; one that never settles is false once the time is up', async () => {
    expect(await settlesWithin(Promise.resolve('done'), 1_000)).toBe(true);
    expect(await settlesWithin(Promise.reject(new Error('failed')), 1_000)).toBe(true);
    expect(await settlesWithin(new Promise(() => {}), 20)).toBe(false);
  });
});
