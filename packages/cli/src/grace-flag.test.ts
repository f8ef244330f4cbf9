import { expect, test } from 'bun:test';
import { graceFlag } from './grace-flag.ts';
import { UsageError } from './terminal.ts';

test('--grace is milliseconds as digits; anything else is a usage error of the command', () => {
  expect(graceFlag(undefined, 'run')).toBeUndefined();
  expect(graceFlag('0', 'run')).toBe(0);
  expect(graceFlag('2500', 'chat')).toBe(2500);
  for (const bad of ['abc', '', '-1', '1.5', '1e3']) {
    expect(() => graceFlag(bad, 'chat')).toThrow(UsageError);
  }
  expect(() => graceFlag('abc', 'run')).toThrow("--grace must be a whole number of milliseconds, got 'abc'");
});
