/** A run of Hangul syllables/jamo, or a run of other letters and digits. */
const wordPattern = /[\u1100-\u11FF\u3131-\u318E\uAC00-\uD7A3]+|[\p{L}\p{N}]+/gu;
const hangulPattern = /^[\u1100-\u11FF\u3131-\u318E\uAC00-\uD7A3]/;

/**
 * The terms a text is indexed and searched by. Korean has no spaces between a word and its particles ("회의를"),
 * so a Hangul run becomes its character bigrams ("회의", "의를"): a 2-syllable query word is one bigram and finds
 * the word inside any run. Other words are lowercased whole (prefix search covers "meet" → "meeting").
 */
export function searchTerms(text: string): string[] {
  const terms: string[] = [];
  for (const [word] of text.normalize('NFC').matchAll(wordPattern)) {
    if (!hangulPattern.test(word)) {
      terms.push(word.toLowerCase());
      continue;
    }
    const syllables = [...word];
    if (syllables.length === 1) terms.push(word);
    for (let i = 0; i + 1 < syllables.length; i++) terms.push(`${syllables[i]}${syllables[i + 1]}`);
  }
  return terms;
}

/** The FTS5 column text of `text`: its terms separated by spaces. */
export function indexText(text: string): string {
  return searchTerms(text).join(' ');
}

/**
 * An FTS5 MATCH expression for `query`: every term as a quoted prefix (`"회의"*`), joined by AND (all terms) or
 * OR (any term, ranked). Terms hold only letters and digits, so quoting cannot be escaped. `null` when the query
 * has no searchable term.
 */
export function matchExpression(query: string, join: 'AND' | 'OR', maxTerms = 32): string | null {
  const terms = [...new Set(searchTerms(query))].slice(0, maxTerms);
  if (terms.length === 0) return null;
  return terms.map((term) => `"${term}"*`).join(` ${join} `);
}
