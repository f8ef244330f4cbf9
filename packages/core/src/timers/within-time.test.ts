import { describe, expect, test } from 'bun:test';
import { withinTime } from './within-time.ts';

describe('withinTime', () => {
  test("passes the work's value and its rejection through", async () => {
    expect(await withinTime(Promise.resolve(7), 1000, () => new Error('late'))).toBe(7);
    expect(await withinTime(3, 1000, () => new Error('late'))).toBe(3);
    await expect(withinTime(Promise.reject(new Error('own')), 1000, () => new Error('late'))).rejects.toThrow('own');
  });

  test('rejects with the late error when the work never settles', async () => {
    await expect(withinTime(new Promise(() => {}), 20, () => new Error('too slow'))).rejects.toThrow('too slow');
  });
});
