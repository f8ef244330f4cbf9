import { describe, expect, test } from 'bun:test';
import { splitMessage, TELEGRAM_MESSAGE_LIMIT } from './split-message.ts';

describe('splitMessage', () => {
  test('keeps a short reply whole', () => {
    expect(splitMessage('Hello there.')).toEqual(['Hello there.']);
  });

  test('leaves out an empty reply', () => {
    expect(splitMessage('  \n ')).toEqual([]);
  });

  test('cuts at the last paragraph break that fits', () => {
    const first = 'a'.repeat(3000);
    const second = 'b'.repeat(3000);
    expect(splitMessage(`${first}\n\n${second}`)).toEqual([first, second]);
  });

  test('falls back to a line break, then a space', () => {
    expect(splitMessage('one two\nthree four', 12)).toEqual(['one two', 'three four']);
    expect(splitMessage('one two three four', 9)).toEqual(['one two', 'three', 'four']);
  });

  test('cuts a run without breaks hard, every piece within the limit', () => {
    const pieces = splitMessage('x'.repeat(TELEGRAM_MESSAGE_LIMIT * 2 + 10));
    expect(pieces.map((piece) => piece.length)).toEqual([TELEGRAM_MESSAGE_LIMIT, TELEGRAM_MESSAGE_LIMIT, 10]);
  });

  test('never splits a surrogate pair', () => {
    const pieces = splitMessage(`a${'😀'.repeat(4)}`, 4);
    expect(pieces).toEqual(['a😀', '😀😀', '😀']);
    expect(pieces.join('')).toBe(`a${'😀'.repeat(4)}`);
  });
});
