import { describe, expect, test } from 'bun:test';
import { linearRegExp } from './linear-reg-exp.ts';

/** Ajv always passes flags; most patterns here need none. */
const rx = (pattern: string, flags = '') => linearRegExp(pattern, flags);

describe('linearRegExp', () => {
  test('searches like a JavaScript RegExp: unanchored unless the pattern anchors it', () => {
    expect(rx('b+').test('abbc')).toBe(true);
    expect(rx('^b+$').test('abbc')).toBe(false);
    expect(rx('^\\d{2,3}-\\w+$').test('123-abc')).toBe(true);
    expect(rx('\\u00e9').test('café')).toBe(true);
    expect(rx('^\\p{L}+$', 'u').test('naïve')).toBe(true);
  });

  test('answers a catastrophic pattern on a worst-case value instead of backtracking', () => {
    // Native RegExp needs about 2^n steps here; with n = 5000 it would never return.
    expect(rx('^(a+)+$').test(`${'a'.repeat(5000)}b`)).toBe(false);
    expect(rx('^(a+)+$').test('a'.repeat(5000))).toBe(true);
  });

  test('honours the i, m and s flags', () => {
    expect(rx('^abc$', 'i').test('ABC')).toBe(true);
    expect(rx('^b$', 'm').test('a\nb\nc')).toBe(true);
    expect(rx('a.b', 's').test('a\nb')).toBe(true);
    expect(rx('a.b').test('a\nb')).toBe(false);
  });

  test('refuses lookaround and backreferences, naming the pattern', () => {
    expect(() => rx('^(?=a)a+$')).toThrow('pattern "^(?=a)a+$" cannot be matched in linear time');
    expect(() => rx('(a)\\1')).toThrow('cannot be matched in linear time');
  });
});
