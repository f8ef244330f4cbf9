import type { ToolResult } from '../types.ts';

/** An AI SDK tool-result content part carrying our ToolResult (errors as error-json so providers flag them). */
export function toToolResultPart(options: { toolCallId: string; toolName: string; result: ToolResult }) {
  const { toolCallId, toolName, result } = options;
  return {
    type: 'tool-result' as const,
    toolCallId,
    toolName,
    output:
      result.status === 'error'
        ? { type: 'error-json' as const, value: JSON.parse(JSON.stringify(result)) }
        : { type: 'json' as const, value: JSON.parse(JSON.stringify(result)) },
  };
}
