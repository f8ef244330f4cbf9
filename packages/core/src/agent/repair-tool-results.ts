import type { Message } from '../types.ts';
import { createMessage, toolCallsOf } from './create-message.ts';
import { abortedResult } from './repair-conversation.ts';
import { toToolResultPart } from './to-tool-result-part.ts';

/** What `repairToolResults` changed, for the log line. */
export interface ToolResultsRepair {
  messages: Message[];
  /** Results put back right after the assistant message that made their call. */
  moved: number;
  /** Calls no result answered (before the last assistant message), answered with E_TOOL_ABORTED. */
  aborted: number;
  /** Results that answered no call, or a call already answered: dropped. */
  dropped: number;
}

type ResultPart = { type: 'tool-result'; toolCallId: string; toolName?: string };

function resultPartsOf(message: Message): ResultPart[] {
  if (message.data.role !== 'tool' || !Array.isArray(message.data.content)) return [];
  return (message.data.content as ResultPart[]).filter(
    (part) => part?.type === 'tool-result' && typeof part.toolCallId === 'string',
  );
}

/**
 * Providers accept a conversation only when every assistant message with tool calls is followed at once by one
 * result per call, and no result stands anywhere else. True when that holds; the calls of the last assistant
 * message may still be open (a crash or an approval left them; the instance answers or resumes them).
 */
function toolResultsWellFormed(messages: readonly Message[]): boolean {
  let open: Set<string> | null = null;
  for (const message of messages) {
    if (message.data.role === 'tool') {
      if (open === null) return false;
      for (const part of resultPartsOf(message)) if (!open.delete(part.toolCallId)) return false;
      continue;
    }
    if (open !== null && open.size > 0) return false;
    open = message.data.role === 'assistant' ? new Set(toolCallsOf(message).map((call) => call.toolCallId)) : null;
  }
  return true;
}

/**
 * Puts a conversation that two writers interleaved (or any other disorder) back into a shape every provider
 * accepts, or returns null when it already has it. Each call's result (the first one stored after its call)
 * follows the call's assistant message; a call with no result gets E_TOOL_ABORTED, except those of the last
 * assistant message, which stay open for the usual recovery; results that answer nothing are dropped. No other
 * message is changed, removed or reordered.
 */
export function repairToolResults(messages: readonly Message[]): ToolResultsRepair | null {
  if (toolResultsWellFormed(messages)) return null;
  // Result parts by call id, in conversation order, each with the index of the message holding it.
  const pending = new Map<string, { index: number; part: ResultPart }[]>();
  messages.forEach((message, index) => {
    for (const part of resultPartsOf(message)) {
      const list = pending.get(part.toolCallId) ?? [];
      list.push({ index, part });
      pending.set(part.toolCallId, list);
    }
  });
  let tail = -1;
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const role = messages[index]!.data.role;
    if (role === 'tool') continue;
    if (role === 'assistant') tail = index;
    break;
  }
  const out: Message[] = [];
  let moved = 0;
  let aborted = 0;
  let used = 0;
  messages.forEach((message, index) => {
    if (message.data.role === 'tool') return;
    out.push(message);
    for (const call of toolCallsOf(message)) {
      const candidates = pending.get(call.toolCallId) ?? [];
      const at = candidates.findIndex((candidate) => candidate.index > index);
      if (at >= 0) {
        const [{ index: from, part }] = candidates.splice(at, 1) as [{ index: number; part: ResultPart }];
        used += 1;
        // Moved when something other than results of this message stood between the call and its result.
        if (messages.slice(index + 1, from).some((between) => between.data.role !== 'tool')) moved += 1;
        out.push(
          createMessage({ role: 'tool', content: [part] } as Message['data'], {
            type: 'tool',
            toolCallId: call.toolCallId,
            toolName: call.toolName,
          }),
        );
      } else if (index !== tail) {
        aborted += 1;
        const result = abortedResult('This call has no stored result; the conversation was repaired when it opened.');
        out.push(
          createMessage(
            {
              role: 'tool',
              content: [toToolResultPart({ toolCallId: call.toolCallId, toolName: call.toolName, result })],
            },
            { type: 'tool', toolCallId: call.toolCallId, toolName: call.toolName },
          ),
        );
      }
    }
  });
  const total = messages.reduce((sum, message) => sum + resultPartsOf(message).length, 0);
  return { messages: out, moved, aborted, dropped: total - used };
}
