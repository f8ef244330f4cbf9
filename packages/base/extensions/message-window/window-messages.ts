import type { Message } from '@goondan/core';

export interface WindowOptions {
  /**
   * Keep the conversation's first user message in front of the window (default true): it usually states the task,
   * and some providers want the messages to open with a user turn. It counts toward `max`.
   */
  keepFirstUserMessage?: boolean;
}

type Part = { type?: unknown; toolCallId?: unknown };

function parts(message: Message): Part[] {
  const content = message.data.content;
  return Array.isArray(content) ? (content as Part[]) : [];
}

function idsOf(message: Message, type: 'tool-call' | 'tool-result'): string[] {
  const ids: string[] = [];
  for (const part of parts(message)) {
    if (part?.type === type && typeof part.toolCallId === 'string') ids.push(part.toolCallId);
  }
  return ids;
}

/**
 * For each index i: the smallest index a window starting at or before i must reach back to so that no tool
 * result in messages[i..] lacks its call (suffix minimum; Infinity when nothing after i needs anything).
 */
function earliestNeeded(messages: readonly Message[]): number[] {
  const callAt = new Map<string, number>();
  const needs: number[] = new Array(messages.length);
  messages.forEach((message, index) => {
    needs[index] = Number.POSITIVE_INFINITY;
    if (message.data.role === 'assistant') for (const id of idsOf(message, 'tool-call')) callAt.set(id, index);
    if (message.data.role === 'tool') {
      // A result whose call is nowhere (a damaged conversation) constrains nothing: the full history has it too.
      for (const id of idsOf(message, 'tool-result')) needs[index] = Math.min(needs[index]!, callAt.get(id) ?? index);
    }
  });
  for (let index = messages.length - 2; index >= 0; index -= 1) {
    needs[index] = Math.min(needs[index]!, needs[index + 1]!);
  }
  return needs;
}

/**
 * The last `max` messages, cut only where no tool call is separated from its result: the window never opens with
 * a tool result whose call was cut, and an assistant message's calls keep all their results (they follow it).
 * When the cut falls inside a call/results group the window shrinks past the group; if that would leave nothing,
 * it grows to hold the whole group instead, so the window may exceed `max` only to keep one group whole.
 * The input is not changed; when nothing needs cutting the same array is returned.
 * @example windowMessages(messages, 20, { keepFirstUserMessage: true })
 */
export function windowMessages(messages: Message[], max: number, options: WindowOptions = {}): Message[] {
  const limit = Math.max(1, Math.floor(max));
  if (messages.length <= limit) return messages;
  const firstUser = options.keepFirstUserMessage === false ? -1 : messages.findIndex((m) => m.data.role === 'user');
  const pinned = firstUser >= 0 && limit >= 2 && firstUser < messages.length - (limit - 1);
  const tail = pinned ? limit - 1 : limit;
  const needs = earliestNeeded(messages);
  // A window may not open with a tool message (its call would be missing), nor before a result whose call it cuts.
  const valid = (start: number) => needs[start]! >= start && messages[start]!.data.role !== 'tool';
  let start = messages.length - tail;
  while (start < messages.length && !valid(start)) start += 1;
  if (start === messages.length) {
    start = messages.length - tail - 1;
    while (start > 0 && !valid(start)) start -= 1;
  }
  const window = messages.slice(start);
  return pinned && firstUser < start ? [messages[firstUser]!, ...window] : window;
}
