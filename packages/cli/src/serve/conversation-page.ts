import type { ConversationStore, Message } from '@goondan/core';
import { badRequest } from './api-error.ts';

/**
 * One page of a stored conversation, newest last: the `limit` messages before the message `before` (default: the
 * last `limit`; every one without a limit). `earlier` is the cursor of the page before it (the id of its first
 * message, to pass as `before`), or null when the page starts at the first message. A `before` that names no
 * message of the conversation is a bad request.
 */
export function pageOfConversation<Message extends { id: string }>(
  messages: readonly Message[],
  options: { limit?: number; before?: string },
): { shown: Message[]; earlier: string | null } {
  let end = messages.length;
  if (options.before !== undefined) {
    end = messages.findIndex((message) => message.id === options.before);
    if (end < 0) throw badRequest(`'before' names no message of this conversation: '${options.before.slice(0, 64)}'.`);
  }
  const start = options.limit === undefined ? 0 : Math.max(0, end - options.limit);
  return { shown: messages.slice(start, end), earlier: start > 0 ? messages[start]!.id : null };
}

/**
 * One page of the conversation `store` holds, with how many messages it holds: the last page (no `before`) is read
 * with `tail`, which decodes only the messages shown (a fraction of the time and memory of the whole conversation
 * at 100,000 messages); a page before a message, or every message, reads the whole conversation.
 */
export function readConversationPage(
  store: Pick<ConversationStore, 'load' | 'tail'>,
  options: { limit?: number; before?: string },
): { shown: Message[]; earlier: string | null; total: number } {
  if (options.before === undefined && options.limit !== undefined) {
    const { messages, total } = store.tail(options.limit);
    return { shown: messages, earlier: total > messages.length ? messages[0]!.id : null, total };
  }
  const messages = store.load();
  return { ...pageOfConversation(messages, options), total: messages.length };
}
