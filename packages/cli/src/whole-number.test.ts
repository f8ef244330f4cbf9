import { describe, expect, test } from 'bun:test';
import { wholeNumber } from './whole-number.ts';

describe('wholeNumber', () => {
  test('reads digits at or above the minimum', () => {
    expect(wholeNumber('20', 1)).toBe(20);
    expect(wholeNumber('0')).toBe(0);
    expect(wholeNumber('007', 1)).toBe(7);
    expect(wholeNumber(String(Number.MAX_SAFE_INTEGER), 1)).toBe(Number.MAX_SAFE_INTEGER);
  });

  test('refuses what Number() would take but is not a plain whole number', () => {
    for (const text of ['', ' 5', '5 ', '0x10', '1e3', '-1', '1.5', '+3', 'NaN', 'Infinity', '5abc']) {
      expect(wholeNumber(text)).toBeNull();
    }
  });

  test('refuses numbers below the minimum and too large to be exact', () => {
    expect(wholeNumber('0', 1)).toBeNull();
    expect(wholeNumber(String(Number.MAX_SAFE_INTEGER + 1))).toBeNull();
    expect(wholeNumber('9223372036854775807')).toBeNull();
    expect(wholeNumber('99999999999999999999')).toBeNull();
  });
});
