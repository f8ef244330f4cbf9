import type { JsonValue, Message } from '../types.ts';
import { createMessage } from './create-message.ts';
import { answerUnansweredToolCalls } from './repair-conversation.ts';
import type { TurnResult } from './turn-types.ts';

/** Longest part of an error message quoted in the note. */
const MAX_QUOTED = 300;

/**
 * What closes a turn that did not complete, so the conversation stays coherent for the next one
 * (docs/decisions.md): without it, a failed turn's user message stays unanswered and the next request carries
 * several user messages in a row, as if the model had ignored them. A failed turn gets E_TOOL_ABORTED for calls
 * still open, then an assistant note saying the request was not carried out and why; a cancelled turn gets the
 * note only when the model had not answered at all (otherwise its aborted tool results already say so).
 * Empty when nothing is needed.
 */
export function closeUnfinishedTurn(messages: readonly Message[], result: TurnResult): Message[] {
  if (result.status !== 'error' && result.status !== 'cancelled') return [];
  if (result.status === 'cancelled' && messages.at(-1)?.data.role !== 'user') return [];
  const open = answerUnansweredToolCalls(messages, 'The turn ended before this tool call finished.');
  const detail = result.error ? `${result.error.code}: ${result.error.message}` : '';
  const reason =
    result.status === 'cancelled'
      ? 'it was cancelled'
      : `it failed (${detail.length > MAX_QUOTED ? `${detail.slice(0, MAX_QUOTED - 1)}…` : detail})`;
  const metadata: Record<string, JsonValue> = { turnOutcome: result.status };
  if (result.error) metadata.errorCode = result.error.code;
  const note = turnNote(`[This turn did not complete: ${reason}. The request above was not carried out.]`, metadata);
  return [...(open ? [open] : []), note];
}

/**
 * An assistant message of the runtime's own (source `system`) that stands for an answer the model did not give, so
 * the conversation goes on coherently; `metadata.turnOutcome` says why.
 */
export function turnNote(text: string, metadata: Record<string, JsonValue>): Message {
  const note = createMessage({ role: 'assistant', content: [{ type: 'text', text }] }, { type: 'system' });
  return { ...note, metadata };
}
