import { describe, expect, test } from 'bun:test';
import { truncateErrorMessage } from './truncate-error-message.ts';

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('truncateErrorMessage (spec §10.4)', () => {
  test('keeps `limit` characters in all, the suffix included', () => {
    const cut = truncateErrorMessage('a'.repeat(100), 40);
    expect(cut).toHaveLength(40);
    expect(cut.endsWith('... (truncated)')).toBe(true);
    expect(truncateErrorMessage('short', 40)).toBe('short');
  });

  test('never splits a surrogate pair: an emoji at the cut is dropped whole, and the result stays within the limit', () => {
    for (let offset = 0; offset < 4; offset += 1) {
      const message = `${'a'.repeat(offset)}${'😀'.repeat(100)}`;
      for (const limit of [20, 21, 22, 23, 50, 51]) {
        const cut = truncateErrorMessage(message, limit);
        expect(cut.length).toBeLessThanOrEqual(limit);
        expect(loneSurrogate.test(cut)).toBe(false);
        expect(cut.endsWith('... (truncated)')).toBe(true);
        expect(new TextDecoder().decode(new TextEncoder().encode(cut))).toBe(cut);
      }
    }
  });

  test('a limit shorter than the suffix still gives at most `limit` characters', () => {
    expect(truncateErrorMessage('x'.repeat(100), 5).length).toBeLessThanOrEqual(5);
    expect(truncateErrorMessage('x'.repeat(100), 0)).toBe('');
  });
});
