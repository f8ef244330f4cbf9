import { containsCredential, knownSecretValues } from '@goondan/core/secrets';

/** Shorter values are not judged by their entropy alone: too many ordinary words and ids look random that short. */
export const MIN_RANDOM_TOKEN_CHARS = 24;
/** Bits per character a random token reaches and words, versions and names do not. */
const MIN_TOKEN_ENTROPY_BITS = 4;

/** Characters of base64, base64url and the usual token alphabets; a value with others (`:`, `;`, space) is text. */
const tokenCharacters = /^[A-Za-z0-9+/=_.~-]+$/;

function entropyBitsPerChar(text: string): number {
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const share = count / text.length;
    bits -= share * Math.log2(share);
  }
  return bits;
}

/** Share of neighbouring letters and digits that change class (upper, lower, digit) a random token reaches. */
const MIN_CLASS_SWITCH_SHARE = 0.35;

function characterClass(char: string): 'upper' | 'lower' | 'digit' | 'other' {
  if (char >= 'A' && char <= 'Z') return 'upper';
  if (char >= 'a' && char <= 'z') return 'lower';
  return char >= '0' && char <= '9' ? 'digit' : 'other';
}

/**
 * How often neighbouring letters and digits change class: about 0.6 in a random token, under 0.3 in CamelCase
 * names and versions (`MyApplicationName2024`, `alpine-amd64-Build7`), whose words are runs of one class.
 */
function classSwitchShare(text: string): number {
  let pairs = 0;
  let switches = 0;
  for (let index = 1; index < text.length; index++) {
    const before = characterClass(text[index - 1]!);
    const after = characterClass(text[index]!);
    if (before === 'other' || after === 'other') continue;
    pairs += 1;
    if (before !== after) switches += 1;
  }
  return pairs === 0 ? 0 : switches / pairs;
}

/**
 * True for a long random-looking token: 24 characters or more from a token alphabet, not a path, with upper case,
 * lower case and digits (so hex ids, UUIDs and version strings stay), at least 4 bits of entropy per character, and
 * letters and digits mixed the way chance mixes them, not in words.
 */
function isRandomToken(value: string): boolean {
  if (value.length < MIN_RANDOM_TOKEN_CHARS || !tokenCharacters.test(value)) return false;
  if (/^[/~.]/.test(value)) return false;
  if (!/[A-Z]/.test(value) || !/[a-z]/.test(value) || !/[0-9]/.test(value)) return false;
  return entropyBitsPerChar(value) >= MIN_TOKEN_ENTROPY_BITS && classSwitchShare(value) >= MIN_CLASS_SWITCH_SHARE;
}

/**
 * True when a value is a secret by what it holds, whatever its name: a known secret value of this process (from a
 * ValueSource or a model key), a credential of a known shape (`sk-…`, `ghp_…`, `AKIA…`, a JWT, a PEM key,
 * `Bearer …`, `user:password@`), or a long random-looking token such as an AWS secret access key.
 */
export function looksLikeSecretValue(value: string): boolean {
  if (knownSecretValues().some((secret) => value.includes(secret))) return true;
  return containsCredential(value) || isRandomToken(value);
}
