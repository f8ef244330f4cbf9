import type { SpanRecord } from '../store/trace-store.ts';
import type { JsonValue } from '../types.ts';
import type { SpanContent } from './span-telemetry.ts';

/** Longest JSON text of one content attribute; longer is cut (collectors refuse huge attributes). */
export const MAX_CONTENT_CHARS = 32_000;

type Part = Record<string, JsonValue>;

function partOf(part: JsonValue): Part {
  if (typeof part === 'string') return { type: 'text', content: part };
  if (part === null || typeof part !== 'object' || Array.isArray(part)) return { type: 'text', content: String(part) };
  if (part.type === 'text' || part.type === 'reasoning') return { type: part.type, content: part.text ?? '' };
  if (part.type === 'tool-call') {
    return {
      type: 'tool_call',
      id: part.toolCallId ?? null,
      name: part.toolName ?? null,
      arguments: part.input ?? null,
    };
  }
  if (part.type === 'tool-result')
    return { type: 'tool_call_response', id: part.toolCallId ?? null, response: part.output ?? null };
  return { type: String(part.type ?? 'unknown') };
}

/**
 * AI SDK model messages (`{ role, content }`) in the GenAI conventions' message shape:
 * `[{ role, parts: [{ type: 'text', content }, { type: 'tool_call', id, name, arguments }, ...] }]`.
 */
export function toGenAiMessages(messages: JsonValue): JsonValue {
  if (typeof messages === 'string') return [{ role: 'user', parts: [{ type: 'text', content: messages }] }];
  if (!Array.isArray(messages)) return [];
  return messages.map((message) => {
    if (message === null || typeof message !== 'object' || Array.isArray(message)) return { role: 'user', parts: [] };
    const { content } = message;
    const parts = Array.isArray(content) ? content.map(partOf) : [partOf(content ?? '')];
    return { role: String(message.role ?? 'user'), parts };
  });
}

function capped(value: JsonValue): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length <= MAX_CONTENT_CHARS
    ? text
    : `${text.slice(0, MAX_CONTENT_CHARS)}…[truncated ${text.length} chars]`;
}

/**
 * The opt-in content attributes of a span, redacted with `redact` first: `gen_ai.system_instructions`,
 * `gen_ai.input.messages`, `gen_ai.output.messages` (turns, model calls), `gen_ai.tool.call.arguments` and
 * `gen_ai.tool.call.result` (tool calls), each JSON text capped at MAX_CONTENT_CHARS.
 */
export function contentAttributes(
  span: SpanRecord,
  content: SpanContent,
  redact: (value: JsonValue) => JsonValue,
): Record<string, string> {
  const out: Record<string, string> = {};
  const set = (key: string, value: JsonValue | undefined) => {
    if (value !== undefined) out[key] = capped(redact(value));
  };
  if (span.kind === 'tool') {
    set('gen_ai.tool.call.arguments', content.input);
    set('gen_ai.tool.call.result', content.output);
    return out;
  }
  if (content.system !== undefined) {
    set('gen_ai.system_instructions', [{ type: 'text', content: content.system }]);
  }
  if (content.input !== undefined) set('gen_ai.input.messages', toGenAiMessages(content.input));
  if (content.output !== undefined) {
    const output =
      typeof content.output === 'string'
        ? [{ role: 'assistant', parts: [{ type: 'text', content: content.output }] }]
        : toGenAiMessages(content.output);
    set('gen_ai.output.messages', output);
  }
  return out;
}
