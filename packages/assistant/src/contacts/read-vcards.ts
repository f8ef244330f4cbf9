import { GoondanError } from '@goondan/core/errors';
import { loadIcal } from '../calendar/ical-module.ts';

/** A contact as the tools answer it (text kept as written: Korean names, NFC). */
export interface Contact {
  name: string;
  nicknames?: string[];
  emails?: { value: string; type?: string }[];
  phones?: { value: string; type?: string }[];
  organization?: string;
  title?: string;
  addresses?: { value: string; type?: string }[];
  birthday?: string;
  notes?: string;
  urls?: string[];
  addressBook: string;
}

const NOTE_MAX_CHARS = 1000;

function text(value: unknown): string {
  if (Array.isArray(value))
    return value
      .flat()
      .filter((part) => typeof part === 'string' && part !== '')
      .join(' ');
  return value === null || value === undefined ? '' : String(value);
}

function typed(property: { getFirstValue(): unknown; getParameter(name: string): unknown }) {
  const type = property.getParameter('type');
  const value = text(property.getFirstValue()).trim();
  const label = Array.isArray(type) ? type.join(',') : typeof type === 'string' ? type : undefined;
  return { value, ...(label ? { type: label.toLowerCase() } : {}) };
}

/** Every vCard (3.0 or 4.0) in a text; unreadable text is E_CALENDAR_DATA_INVALID naming its source. */
export async function readVCards(source: string, body: string, addressBook: string): Promise<Contact[]> {
  const ICAL = await loadIcal();
  let parsed: unknown;
  try {
    parsed = ICAL.parse(body);
  } catch (error) {
    throw new GoondanError(
      'E_CALENDAR_DATA_INVALID',
      `${source} is not readable vCard: ${(error as Error).message.slice(0, 200)}`,
      {
        suggestion: 'Check the file holds vCards (BEGIN:VCARD … END:VCARD); fix or replace the broken part.',
      },
    );
  }
  const cards = Array.isArray((parsed as unknown[])[0]) ? (parsed as unknown[][]) : [parsed as unknown[]];
  const contacts: Contact[] = [];
  for (const jcard of cards) {
    const card = new ICAL.Component(jcard);
    if (card.name !== 'vcard') continue;
    const structured = text(card.getFirstPropertyValue('n'));
    const name = (text(card.getFirstPropertyValue('fn')).trim() || structured.trim() || '(no name)').normalize('NFC');
    const contact: Contact = { name, addressBook };
    const list = (property: string) =>
      card
        .getAllProperties(property)
        .map(typed)
        .filter((entry) => entry.value !== '');
    const nicknames = card
      .getAllProperties('nickname')
      .flatMap((p) => text(p.getValues()).split(','))
      .map((s) => s.trim())
      .filter(Boolean);
    if (nicknames.length > 0) contact.nicknames = nicknames;
    const emails = list('email');
    if (emails.length > 0) contact.emails = emails;
    const phones = list('tel');
    if (phones.length > 0)
      contact.phones = phones.map((phone) => ({ ...phone, value: phone.value.replace(/^tel:/i, '') }));
    const organization = text(card.getFirstPropertyValue('org')).trim();
    if (organization) contact.organization = organization;
    const title = text(card.getFirstPropertyValue('title')).trim();
    if (title) contact.title = title;
    const addresses = list('adr').map((address) => ({ ...address, value: address.value.replace(/\s+/g, ' ') }));
    if (addresses.length > 0) contact.addresses = addresses;
    const birthday = text(card.getFirstPropertyValue('bday')).trim();
    if (birthday) contact.birthday = birthday;
    const note = text(card.getFirstPropertyValue('note')).trim();
    if (note) contact.notes = note.length > NOTE_MAX_CHARS ? `${note.slice(0, NOTE_MAX_CHARS)}…` : note;
    const urls = card
      .getAllProperties('url')
      .map((p) => text(p.getFirstValue()))
      .filter(Boolean);
    if (urls.length > 0) contact.urls = urls;
    contacts.push(contact);
  }
  return contacts;
}
