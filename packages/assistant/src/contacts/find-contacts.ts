import type { Contact } from './read-vcards.ts';

const fold = (value: string) => value.normalize('NFC').toLowerCase().replace(/\s+/g, ' ').trim();
const digits = (value: string) => value.replace(/\D/g, '');
/** The digits after a trunk prefix `0` (010-1234-5678 → 1012345678), the part an international form keeps. */
const national = (number: string) => number.replace(/^0+/, '');

/**
 * Whether a phone number matches the digits of a query (at least 4): the query's digits anywhere in it, or, for a
 * whole number, the same number written with the country code or with the trunk 0 (`010-1234-5678` and
 * `+82 10-1234-5678` are one number).
 */
function phoneMatches(phone: string, number: string): boolean {
  const own = digits(phone);
  if (own.includes(number)) return true;
  const wanted = national(number);
  const mine = national(own);
  return (wanted.length >= 7 && own.includes(wanted)) || (mine.length >= 7 && number.includes(mine));
}

/** How well a contact matches a query: 3 whole name, 2 name or nickname begins with it, 1 contains it anywhere, 0 none. */
export function matchScore(contact: Contact, query: string): number {
  const wanted = fold(query);
  if (wanted === '') return 0;
  const names = [contact.name, ...(contact.nicknames ?? [])].map(fold);
  if (names.includes(wanted) || names.some((name) => name.replace(/ /g, '') === wanted.replace(/ /g, ''))) return 3;
  if (names.some((name) => name.startsWith(wanted) || name.split(' ').some((part) => part.startsWith(wanted))))
    return 2;
  const haystack = [
    ...names,
    contact.organization ?? '',
    contact.title ?? '',
    ...(contact.emails ?? []).map((email) => email.value),
  ].map(fold);
  if (haystack.some((field) => field.includes(wanted))) return 1;
  const number = digits(query);
  if (number.length >= 4 && (contact.phones ?? []).some((phone) => phoneMatches(phone.value, number))) return 1;
  return 0;
}

/** The contacts matching `query`, best first, then by name. */
export function findContacts(contacts: readonly Contact[], query: string): Contact[] {
  return contacts
    .map((contact) => ({ contact, score: matchScore(contact, query) }))
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.contact.name.localeCompare(b.contact.name, 'ko'))
    .map((entry) => entry.contact);
}
