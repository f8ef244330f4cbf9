import type { Message } from '../types.ts';

/** One change to a conversation: `next = base + events`. */
export type ConversationEvent =
  | { type: 'append'; message: Message }
  /** Puts `message` where `targetId` was (its id may differ). */
  | { type: 'replace'; targetId: string; message: Message }
  | { type: 'remove'; targetId: string }
  /** Clears the whole conversation. */
  | { type: 'truncate' };

/** A message of the folded conversation and the turn that appended it (null when none was given). */
export interface ConversationEntry {
  message: Message;
  turnId: string | null;
}

/** An event with the turn it was written in. */
export interface TurnTaggedEvent {
  event: ConversationEvent;
  turnId: string | null;
}

/**
 * Folds events onto a base, in order. The rules make a replay after a crash harmless:
 * - append of an id already present is ignored (first write wins; change a message with replace);
 * - replace or remove of an id not present is ignored;
 * - replace keeps the position and the turn of the message it replaces; if the new message's id belongs to
 *   another message, that other one is dropped so ids stay unique.
 */
export function foldConversation(
  base: readonly ConversationEntry[],
  events: Iterable<TurnTaggedEvent>,
): ConversationEntry[] {
  let entries = new Map<string, ConversationEntry>();
  for (const entry of base) if (!entries.has(entry.message.id)) entries.set(entry.message.id, entry);
  for (const { event, turnId } of events) {
    switch (event.type) {
      case 'append':
        if (!entries.has(event.message.id)) entries.set(event.message.id, { message: event.message, turnId });
        break;
      case 'replace':
        entries = replaceEntry(entries, event.targetId, event.message);
        break;
      case 'remove':
        entries.delete(event.targetId);
        break;
      case 'truncate':
        entries.clear();
        break;
    }
  }
  return [...entries.values()];
}

function replaceEntry(
  entries: Map<string, ConversationEntry>,
  targetId: string,
  message: Message,
): Map<string, ConversationEntry> {
  const existing = entries.get(targetId);
  if (existing === undefined) return entries;
  const replacement = { message, turnId: existing.turnId };
  if (message.id === targetId) {
    entries.set(targetId, replacement);
    return entries;
  }
  // A new id must take the old one's place in the order, which a Map cannot do in place.
  const next = new Map<string, ConversationEntry>();
  for (const [id, entry] of entries) {
    if (id === targetId) next.set(message.id, replacement);
    else if (id !== message.id) next.set(id, entry);
  }
  return next;
}

/**
 * `next = base + events` over plain messages, for code that keeps a conversation in memory.
 *
 * @example
 * const next = applyConversationEvents(base, [{ type: 'append', message }, { type: 'remove', targetId: 'm1' }]);
 */
export function applyConversationEvents(base: readonly Message[], events: readonly ConversationEvent[]): Message[] {
  const entries = base.map((message) => ({ message, turnId: null }));
  const tagged = events.map((event) => ({ event, turnId: null }));
  return foldConversation(entries, tagged).map((entry) => entry.message);
}
