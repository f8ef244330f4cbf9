import { describe, expect, test } from 'bun:test';
import { quotedValue } from './quoted-value.ts';

describe('quotedValue', () => {
  test('a plain value is quoted as it is', () => {
    expect(quotedValue('helper')).toBe("'helper'");
  });

  test('line breaks and escape sequences are shown escaped, on one line', () => {
    expect(quotedValue('a\nb\r\u001b[31m')).toBe("'a\\nb\\r\\u001b[31m'");
  });

  test('a long value is cut at max characters, with an ellipsis', () => {
    expect(quotedValue('k'.repeat(100_000))).toBe(`'${'k'.repeat(100)}…'`);
    expect(quotedValue('abcdef', 3)).toBe("'abc…'");
  });
});
