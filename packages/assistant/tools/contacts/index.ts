/**
 * Contacts over CardDAV or in a local vCard file (docs/assistant.md#calendar-and-contacts): search and detail,
 * both safe. Answers are bounded: at most 20 search hits, 5 details.
 */
import type { ToolContext } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';
import { findContacts } from '../../src/contacts/find-contacts.ts';
import { loadContacts } from '../../src/contacts/load-contacts.ts';
import { answerPendingAuthorization } from '../../src/dav/answer-pending-authorization.ts';

const SEARCH_LIMIT = 20;
const DETAIL_LIMIT = 5;

function checkedQuery(value: unknown, field: string): string {
  const query = typeof value === 'string' ? value.trim() : '';
  if (query === '' || query.length > 200)
    throw new GoondanError('E_TOOL_INVALID_ARGS', `'${field}' must be 1 to 200 characters.`, {
      suggestion: 'Give a name, part of a name, an e-mail address or a phone number.',
    });
  return query;
}

export const handlers = {
  search: (ctx: ToolContext, input: { query: string }) =>
    answerPendingAuthorization(async () => {
      const query = checkedQuery(input.query, 'query');
      const { contacts, notes } = await loadContacts(ctx);
      const found = findContacts(contacts, query);
      return {
        query,
        count: found.length,
        contacts: found.slice(0, SEARCH_LIMIT).map((contact) => ({
          name: contact.name,
          ...(contact.organization ? { organization: contact.organization } : {}),
          ...(contact.emails ? { emails: contact.emails.map((email) => email.value) } : {}),
          ...(contact.phones ? { phones: contact.phones.map((phone) => phone.value) } : {}),
        })),
        ...(found.length > SEARCH_LIMIT ? { more: found.length - SEARCH_LIMIT } : {}),
        ...(notes.length > 0 ? { notes } : {}),
      };
    }),
  get_detail: (ctx: ToolContext, input: { name: string }) =>
    answerPendingAuthorization(async () => {
      const name = checkedQuery(input.name, 'name');
      const { contacts } = await loadContacts(ctx);
      const found = findContacts(contacts, name);
      if (found.length === 0)
        throw new GoondanError('E_CONTACT_NOT_FOUND', `No contact matches '${name}'.`, {
          suggestion:
            'Search with contacts__search (part of the name, an e-mail or a phone number) and pass a name it lists.',
        });
      if (found.length === 1) return { contact: found[0] };
      return {
        note: `${found.length} contacts match '${name}'; ask which one is meant.`,
        contacts: found.slice(0, DETAIL_LIMIT),
      };
    }),
};
