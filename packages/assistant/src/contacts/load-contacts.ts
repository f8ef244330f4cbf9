import { basename, extname } from 'node:path';
import type { ToolContext } from '@goondan/core';
import { readBoundedFile } from '../calendar/file-calendar.ts';
import { pimBackendOf } from '../dav/dav-config.ts';
import { withDavClient } from '../dav/dav-session.ts';
import { type Contact, readVCards } from './read-vcards.ts';

type Ctx = Pick<ToolContext, 'agentName' | 'instanceKey' | 'message' | 'signal' | 'workdir' | 'config'>;

/** Every contact of the configured backend: the address books of a CardDAV account, or one .vcf file. */
export async function loadContacts(ctx: Ctx): Promise<{ contacts: Contact[]; notes: string[] }> {
  const backend = pimBackendOf(ctx, 'contacts');
  if (backend.type === 'file') {
    const body = await readBoundedFile(backend.path, backend.maxResponseBytes);
    const book = basename(backend.path, extname(backend.path));
    return { contacts: body === null ? [] : await readVCards(basename(backend.path), body, book), notes: [] };
  }
  return withDavClient(ctx, backend, 'carddav', async (client) => {
    const contacts: Contact[] = [];
    const notes: string[] = [];
    for (const book of await client.fetchAddressBooks()) {
      const name = typeof book.displayName === 'string' && book.displayName !== '' ? book.displayName : 'Contacts';
      for (const card of await client.fetchVCards({ addressBook: book })) {
        if (typeof card.data !== 'string') continue;
        try {
          contacts.push(...(await readVCards(card.url, card.data, name)));
        } catch {
          notes.push(`An unreadable contact in '${name}' was skipped.`);
        }
      }
    }
    return { contacts, notes };
  });
}
