import { errorCodes, helpUrlFor } from '../errors/error-codes.ts';
import type { Message, ToolResult } from '../types.ts';
import { createMessage, toolCallsOf, toolResultIdsOf } from './create-message.ts';
import { toToolResultPart } from './to-tool-result-part.ts';

/**
 * A tool message answering every tool call of the last assistant message that has no result yet, or null when
 * nothing is missing. Used after a crash or a cancelled turn, so the history stays valid for every provider
 * (each tool call has its result) and the model learns the call did not complete.
 */
export function answerUnansweredToolCalls(messages: readonly Message[], reason: string): Message | null {
  const answered = new Set<string>();
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index]!;
    if (message.data.role === 'tool') {
      for (const id of toolResultIdsOf(message)) answered.add(id);
      continue;
    }
    if (message.data.role !== 'assistant') return null;
    const missing = toolCallsOf(message).filter((call) => !answered.has(call.toolCallId));
    if (missing.length === 0) return null;
    const result: ToolResult = {
      status: 'error',
      error: {
        code: 'E_TOOL_ABORTED',
        name: errorCodes.E_TOOL_ABORTED.name,
        message: reason,
        suggestion: errorCodes.E_TOOL_ABORTED.suggestion,
        helpUrl: helpUrlFor('E_TOOL_ABORTED'),
      },
    };
    return createMessage(
      { role: 'tool', content: missing.map((call) => toToolResultPart({ ...call, result })) },
      { type: 'system' },
    );
  }
  return null;
}
