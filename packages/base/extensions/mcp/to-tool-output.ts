import type { JsonValue } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * What an MCP tools/call result becomes as the output of our tool:
 * - `isError: true` → throws E_MCP_TOOL_ERROR whose message is the text content (the pipeline makes it an error
 *   ToolResult, cut to the tool's error message limit);
 * - `structuredContent` → that object;
 * - a single text item → its text, parsed when the text is a JSON object or array (servers without
 *   structuredContent often answer JSON as text; parsing spares the model an escaped string);
 * - anything else → the content array as the server sent it (images, resources, several items).
 */
export function toToolOutput(result: CallToolResult, where: { serverName: string; toolName: string }): JsonValue {
  const content = Array.isArray(result.content) ? result.content : [];
  if (result.isError === true) {
    const text = content
      .filter((item) => item.type === 'text')
      .map((item) => (item as { text: string }).text)
      .join('\n')
      .trim();
    throw new GoondanError(
      'E_MCP_TOOL_ERROR',
      text || `MCP tool '${where.toolName}' of server '${where.serverName}' reported an error without a message.`,
    );
  }
  if (result.structuredContent !== undefined) return result.structuredContent as JsonValue;
  const [only] = content;
  if (content.length === 1 && only?.type === 'text') return parseJsonText(only.text);
  return content as unknown as JsonValue;
}

function parseJsonText(text: string): JsonValue {
  const trimmed = text.trim();
  const first = trimmed[0];
  const last = trimmed[trimmed.length - 1];
  if (!((first === '{' && last === '}') || (first === '[' && last === ']'))) return text;
  try {
    return JSON.parse(trimmed) as JsonValue;
  } catch {
    return text;
  }
}
