import { afterEach, describe, expect, test } from 'bun:test';
import { redactKnownSecrets } from './redact-known-secrets.ts';
import { redactSecrets } from './redact-secrets.ts';
import { forgetSecretValues, knownSecretValues, rememberSecretValue } from './secret-registry.ts';

afterEach(forgetSecretValues);

describe('known secret values', () => {
  test('a remembered value is masked inside longer strings, at any depth, in arrays and objects', () => {
    rememberSecretValue('Zq8vXw3kLm9pRt2y');
    const value = {
      message: 'Incorrect API key provided: Zq8vXw3kLm9pRt2y. See the docs.',
      nested: [{ deep: ['prefixZq8vXw3kLm9pRt2ysuffix'] }],
      count: 3,
      flag: true,
      none: null,
    };
    expect(redactKnownSecrets(value)).toEqual({
      message: 'Incorrect API key provided: [REDACTED]. See the docs.',
      nested: [{ deep: ['prefix[REDACTED]suffix'] }],
      count: 3,
      flag: true,
      none: null,
    });
  });

  test('values shorter than 8 characters are not remembered, so ordinary words stay', () => {
    rememberSecretValue('abc1234');
    rememberSecretValue('');
    expect(knownSecretValues()).toEqual([]);
    expect(redactKnownSecrets('abc1234 stays')).toBe('abc1234 stays');
  });

  test('the URL-encoded form is masked too, and the longer of two overlapping secrets is masked whole', () => {
    rememberSecretValue('pa ss/word+1');
    rememberSecretValue('longsecret-abcdefgh');
    rememberSecretValue('longsecret');
    expect(redactKnownSecrets('https://h/?k=pa%20ss%2Fword%2B1 and longsecret-abcdefgh')).toBe(
      'https://h/?k=[REDACTED] and [REDACTED]',
    );
  });

  test('nothing masked: the very same object comes back; class instances pass untouched', () => {
    rememberSecretValue('Zq8vXw3kLm9pRt2y');
    const clean = { a: ['x', { b: 'y' }] };
    expect(redactKnownSecrets(clean)).toBe(clean);
    const when = new Date(0);
    const message = { createdAt: when, text: 'Zq8vXw3kLm9pRt2y' };
    const masked = redactKnownSecrets(message);
    expect(masked.createdAt).toBe(when);
    expect(masked.text).toBe('[REDACTED]');
    expect(message.text).toBe('Zq8vXw3kLm9pRt2y');
  });

  test('redactSecrets masks remembered values without being told them', () => {
    rememberSecretValue('Zq8vXw3kLm9pRt2y');
    expect(redactSecrets({ note: 'token=xZq8vXw3kLm9pRt2y' })).toEqual({ note: 'token=[REDACTED]' });
    expect(redactSecrets('the key Zq8vXw3kLm9pRt2y leaked')).toBe('the key [REDACTED] leaked');
  });
});
