import { GoondanError } from '@goondan/core/errors';

/**
 * Characters a name may not hold: C0 and C1 controls (newline, tab, NUL, ESC, U+0085 NEL…) and the Unicode line and
 * paragraph separators, each of which would break a list of names across lines or hide part of a name in a
 * terminal; and the invisible ones no script needs in a name, with which `Errands` and `Errands\u200B` were two
 * boards that look the same: zero-width space, word joiner, BOM, and the bidi embeddings, overrides and isolates
 * (U+202A–U+202E, U+2066–U+2069) that show a name reversed. (ZWJ and ZWNJ, which emoji and some scripts need, stay.)
 */
const controlCharacter = /[\p{Cc}\p{Zl}\p{Zp}\u200B\u2060\uFEFF\u202A-\u202E\u2066-\u2069]/u;
const controlCharacters = /[\p{Cc}\p{Zl}\p{Zp}\u200B\u2060\uFEFF\u202A-\u202E\u2066-\u2069]/gu;
const lineBreaking = /[\p{Cc}\p{Zl}\p{Zp}]/u;

const codePoint = (char: string): string =>
  `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * A name people give a thing (a board, a column, a profile, an alarm's label): trimmed and in Unicode NFC, so `é`
 * typed as one character or as `e` and an accent is one name. A control character is E_TOOL_INVALID_ARGS naming
 * it; empty and length limits stay with the caller, whose wording knows the field.
 *
 * @example displayName('  Errands ', 'name') // 'Errands'
 */
export function displayName(value: unknown, field: string): string {
  const text = typeof value === 'string' ? value.trim().normalize('NFC') : '';
  const found = controlCharacter.exec(text)?.[0];
  if (found === undefined) return text;
  const shown = text.replace(controlCharacters, (char) => `\\u{${codePoint(char).slice(2)}}`);
  // A control or separator becomes a space, an invisible character nothing.
  const cleaned = text
    .replace(controlCharacters, (char) => (lineBreaking.test(char) ? ' ' : ''))
    .replace(/\s+/g, ' ')
    .trim();
  throw new GoondanError(
    'E_TOOL_INVALID_ARGS',
    `${field.charAt(0).toUpperCase()}${field.slice(1)} "${shown}" contains ${lineBreaking.test(found) ? 'a control character' : 'an invisible or control character'} (${codePoint(found)}); a name is one line of printable text.`,
    {
      suggestion: `Give ${field} without line breaks, tabs or other control characters${cleaned === '' ? '' : `, e.g. "${cleaned}"`}.`,
    },
  );
}

/**
 * The key two names are compared by: NFC, lowercased in every script (`Иван` is `иван`, `Éclair` is `éclair`).
 * SQLite's NOCASE folds only ASCII, so a lookup by `name = ?` is followed by a comparison of these keys.
 */
export const nameKey = (name: string): string => name.normalize('NFC').toLowerCase();
