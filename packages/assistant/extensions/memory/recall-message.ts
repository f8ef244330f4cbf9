import { createMessage, type Message } from '@goondan/core';
import type { MemoryEntry } from '../../src/memory/memory-store.ts';

/** The text the model reads of a message: its string content, or its text parts joined. */
export function messageText(message: Message): string {
  const content = message.data.content as unknown;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part): part is { type: 'text'; text: string } => part?.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join('\n');
}

/** The index of the latest message a person wrote (role user, not added by an extension), or -1. */
export function latestUserIndex(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.data.role === 'user' && message.source.type !== 'extension') return i;
  }
  return -1;
}

/** The recall block's text: the memories that matched a user message. */
export function recallText(memories: readonly MemoryEntry[], currentUser: string | null): string {
  return [
    `Saved memories that may be relevant (memory__search finds more; current user: ${currentUser ?? 'not set'}):`,
    ...memories.map((entry) => `- [${entry.scope}] ${entry.content}`),
  ].join('\n');
}

/** The recall block as a user-role message (added to what the model reads, never stored). */
export function recallMessage(text: string, extensionName: string): Message {
  return createMessage({ role: 'user', content: [{ type: 'text', text }] }, { type: 'extension', extensionName });
}
