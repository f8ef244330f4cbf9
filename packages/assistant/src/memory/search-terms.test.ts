import { describe, expect, test } from 'bun:test';
import { matchExpression, searchTerms } from './search-terms.ts';

describe('searchTerms', () => {
  test('a Hangul run becomes its bigrams, so a 2-syllable word is found inside a word with a particle', () => {
    expect(searchTerms('내일 회의를 준비')).toEqual(['내일', '회의', '의를', '준비']);
    expect(searchTerms('밥')).toEqual(['밥']);
  });

  test('other words are lowercased whole; punctuation separates', () => {
    expect(searchTerms('Meeting at 3pm, room B-12!')).toEqual(['meeting', 'at', '3pm', 'room', 'b', '12']);
  });

  test('the match expression quotes every term as a prefix, and is null without a term', () => {
    expect(matchExpression('회의 meet', 'AND')).toBe('"회의"* AND "meet"*');
    expect(matchExpression('"); DROP TABLE x; --', 'OR')).toBe('"drop"* OR "table"* OR "x"*');
    expect(matchExpression('?!', 'AND')).toBeNull();
  });
});
