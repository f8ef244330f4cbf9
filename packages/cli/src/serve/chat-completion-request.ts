import { badRequest } from './api-error.ts';

/** What the chat endpoint takes from an OpenAI Chat Completions body. */
export interface ChatCompletionRequest {
  agent: string;
  /** The text of the last user message: the new input of the agent's conversation. */
  input: string;
  stream: boolean;
  includeUsage: boolean;
  /** From the X-Goondan-Instance header, else the body's `user`; undefined: the server's default. */
  instanceKey?: string;
}

function textOf(content: unknown, index: number): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw badRequest(`messages[${index}].content must be a string or an array of parts.`);
  return content
    .map((part: unknown, at) => {
      const { type, text } = (part ?? {}) as { type?: unknown; text?: unknown };
      if (type !== 'text' || typeof text !== 'string') {
        throw badRequest(`messages[${index}].content[${at}] must be a text part ({ type: 'text', text }).`);
      }
      return text;
    })
    .join('');
}

/**
 * Reads a Chat Completions body. The agent's conversation lives on the server, so only the last user message is
 * new input; earlier messages (and system messages) in the array are not replayed.
 */
export function parseChatCompletionRequest(body: Record<string, unknown>, headers: Headers): ChatCompletionRequest {
  const { model, messages, stream, stream_options: streamOptions, user } = body;
  if (typeof model !== 'string' || model === '') throw badRequest("'model' must name an agent (a non-empty string).");
  if (!Array.isArray(messages)) throw badRequest("'messages' must be an array of messages.");
  if (stream !== undefined && typeof stream !== 'boolean') throw badRequest("'stream' must be true or false.");
  if (user !== undefined && typeof user !== 'string') throw badRequest("'user' must be a string.");
  let input: string | undefined;
  messages.forEach((message: unknown, index) => {
    if (message === null || typeof message !== 'object') throw badRequest(`messages[${index}] must be an object.`);
    const { role, content } = message as { role?: unknown; content?: unknown };
    if (typeof role !== 'string') throw badRequest(`messages[${index}].role must be a string.`);
    if (role === 'user') input = textOf(content, index);
  });
  if (input === undefined) throw badRequest("'messages' has no user message to send.");
  const includeUsage =
    streamOptions !== null &&
    typeof streamOptions === 'object' &&
    (streamOptions as { include_usage?: unknown }).include_usage === true;
  const instanceKey = headers.get('x-goondan-instance') ?? (user === '' ? undefined : user);
  return { agent: model, input, stream: stream === true, includeUsage, ...(instanceKey ? { instanceKey } : {}) };
}
