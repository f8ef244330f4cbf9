import { errorCodes, helpUrlFor } from '../errors/error-codes.ts';
import type { Message, ToolCall, ToolResult } from '../types.ts';
import { createMessage, toolCallsOf, toolResultIdsOf } from './create-message.ts';
import { toToolResultPart } from './to-tool-result-part.ts';

/** The calls of the last assistant message that have no result yet, with that message. */
export interface UnansweredCalls {
  assistant: Message;
  calls: ToolCall[];
}

/** Finds the calls a crash, a kill or a pause for approval left without results (null when nothing is missing). */
export function findUnansweredToolCalls(messages: readonly Message[]): UnansweredCalls | null {
  const answered = new Set<string>();
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index]!;
    if (message.data.role === 'tool') {
      for (const id of toolResultIdsOf(message)) answered.add(id);
      continue;
    }
    if (message.data.role !== 'assistant') return null;
    const calls = toolCallsOf(message)
      .filter((call) => !answered.has(call.toolCallId))
      .map((call) => ({ id: call.toolCallId, name: call.toolName, args: (call.input ?? {}) as ToolCall['args'] }));
    return calls.length === 0 ? null : { assistant: message, calls };
  }
  return null;
}

/** A structured E_TOOL_ABORTED result saying why a call has no real one. */
export function abortedResult(reason: string): ToolResult {
  return {
    status: 'error',
    error: {
      code: 'E_TOOL_ABORTED',
      name: errorCodes.E_TOOL_ABORTED.name,
      message: reason,
      suggestion: errorCodes.E_TOOL_ABORTED.suggestion,
      helpUrl: helpUrlFor('E_TOOL_ABORTED'),
    },
  };
}

/**
 * A tool message answering every tool call of the last assistant message that has no result yet, or null when
 * nothing is missing. Used after a crash or a cancelled turn, so the history stays valid for every provider
 * (each tool call has its result) and the model learns the call did not complete. Results saved before the crash
 * (`saved`, by toolCallId) are used instead of E_TOOL_ABORTED.
 */
export function answerUnansweredToolCalls(
  messages: readonly Message[],
  reason: string,
  saved: ReadonlyMap<string, ToolResult> = new Map(),
): Message | null {
  const unanswered = findUnansweredToolCalls(messages);
  if (!unanswered) return null;
  const aborted = abortedResult(reason);
  return createMessage(
    {
      role: 'tool',
      content: unanswered.calls.map((call) =>
        toToolResultPart({ toolCallId: call.id, toolName: call.name, result: saved.get(call.id) ?? aborted }),
      ),
    },
    { type: 'system' },
  );
}
