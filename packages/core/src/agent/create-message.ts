import type { Message, MessageSource, ModelMessage } from '../types.ts';
import { newId } from './agent-event.ts';

/** Wraps an AI SDK message (spec appendix A). */
export function createMessage(data: ModelMessage, source: MessageSource): Message {
  return { id: newId('msg'), data, metadata: {}, createdAt: new Date(), source };
}

/** Tool-call parts of an assistant message: `{ toolCallId, toolName }` in order. */
export function toolCallsOf(message: Message): { toolCallId: string; toolName: string; input: unknown }[] {
  if (message.data.role !== 'assistant' || !Array.isArray(message.data.content)) return [];
  type Part = { type?: string; toolCallId?: string; toolName?: string; input?: unknown; providerExecuted?: boolean };
  // A call the provider ran itself (Anthropic's tool search) carries its result in the same message.
  return (message.data.content as Part[])
    .filter(
      (part) => part.type === 'tool-call' && typeof part.toolCallId === 'string' && part.providerExecuted !== true,
    )
    .map((part) => ({ toolCallId: part.toolCallId!, toolName: String(part.toolName), input: part.input }));
}

/** toolCallIds answered by a tool message. */
export function toolResultIdsOf(message: Message): string[] {
  if (message.data.role !== 'tool' || !Array.isArray(message.data.content)) return [];
  return (message.data.content as { type?: string; toolCallId?: string }[])
    .filter((part) => part.type === 'tool-result' && typeof part.toolCallId === 'string')
    .map((part) => part.toolCallId!);
}
