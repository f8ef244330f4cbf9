import { createHash, randomInt } from 'node:crypto';

// No 0/O, 1/I/L, U: a code read aloud or copied by hand is hard to get wrong.
const ALPHABET = '23456789ABCDEFGHJKMNPQRSTVWXYZ';
const LENGTH = 10;

/** A new invite code, `XXXXX-XXXXX` from 30 symbols (about 49 bits), from the system's secure random source. */
export function newInviteCode(): string {
  let code = '';
  for (let i = 0; i < LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/** A code as typed (any case, with or without spaces and dashes) in the form it was made. */
export function normalizeInviteCode(text: string): string {
  return text.toUpperCase().replace(/[\s-]/g, '');
}

/** What is stored of a code: its SHA-256, so the database alone does not let anyone join. */
export function inviteCodeHash(code: string): string {
  return createHash('sha256').update(normalizeInviteCode(code)).digest('hex');
}
