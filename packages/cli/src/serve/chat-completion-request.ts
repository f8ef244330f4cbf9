import { createHash } from 'node:crypto';
import { isInstanceKey, isUserId } from '@goondan/core';
import { badRequest } from './api-error.ts';

/**
 * The instance of an OpenAI `user` (an end user's id, often an e-mail address): the id itself when it is an instance
 * key, else `user-` and 32 hex digits of its SHA-256, so every id keeps a conversation of its own.
 */
export function instanceKeyOfUser(user: string): string {
  if (isInstanceKey(user)) return user;
  return `user-${createHash('sha256').update(user).digest('hex').slice(0, 32)}`;
}

/** Roles whose messages the server skips: instructions are the agent's own. */
const skippedRoles = new Set(['system', 'developer']);

/** What the chat endpoint takes from an OpenAI Chat Completions body. */
export interface ChatCompletionRequest {
  agent: string;
  /** The text of the last user message: the new input of the agent's conversation. */
  input: string;
  stream: boolean;
  includeUsage: boolean;
  /** From the X-Goondan-Instance header, else the body's `user`; undefined: the server's default. */
  instanceKey?: string;
  /** The body's `user`: the person the turn acts for (its messages carry it; per-user OAuth grants are theirs). */
  userId?: string;
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
  if (typeof user === 'string' && user !== '' && !isUserId(user)) {
    throw badRequest("'user' must be 1-256 characters without control characters: the end user the turn is for.");
  }
  refuseUnkeptPromises(body);
  let input: string | undefined;
  let lastRole: string | undefined;
  messages.forEach((message: unknown, index) => {
    if (message === null || typeof message !== 'object') throw badRequest(`messages[${index}] must be an object.`);
    const { role, content } = message as { role?: unknown; content?: unknown };
    if (typeof role !== 'string') throw badRequest(`messages[${index}].role must be a string.`);
    if (!skippedRoles.has(role)) lastRole = role;
    if (role === 'user') input = textOf(content, index);
  });
  if (input === undefined) throw badRequest("'messages' has no user message to send.");
  // The server keeps the conversation: only a new user message is new input. One ending with the assistant's
  // message or a tool result would send an old user message again as a new turn.
  if (lastRole !== 'user') {
    throw badRequest(
      `The last message must be the user's (got '${lastRole}'): the agent keeps its own conversation and takes the new user message as its next input; tool results of client-side functions are not taken.`,
    );
  }
  const includeUsage =
    streamOptions !== null &&
    typeof streamOptions === 'object' &&
    (streamOptions as { include_usage?: unknown }).include_usage === true;
  const named = typeof user === 'string' && user !== '' ? user : undefined;
  // A header given empty is an instance key like any other (refused when it is checked), not the default instance.
  const instanceKey = headers.get('x-goondan-instance') ?? (named === undefined ? undefined : instanceKeyOfUser(named));
  return {
    agent: model,
    input,
    stream: stream === true,
    includeUsage,
    ...(instanceKey === undefined ? {} : { instanceKey }),
    ...(named === undefined ? {} : { userId: named }),
  };
}

/**
 * Fields an OpenAI client sends to be obeyed, which an agent cannot: several choices, a forced call of the client's
 * own functions, a JSON answer. Refused (400) rather than ignored, so the client is not handed what it did not ask
 * for. `tools` alone (with `tool_choice` absent, `auto` or `none`) is ignored: the agent has its own.
 */
function refuseUnkeptPromises(body: Record<string, unknown>): void {
  const { n, tool_choice: toolChoice, response_format: responseFormat } = body;
  if (n !== undefined && n !== null && n !== 1) {
    throw badRequest(`'n' must be 1 (got ${JSON.stringify(n)}): an agent gives one answer per turn.`);
  }
  if (toolChoice !== undefined && toolChoice !== null && toolChoice !== 'auto' && toolChoice !== 'none') {
    throw badRequest(
      "'tool_choice' other than 'auto' or 'none' is not supported: the agent calls its own tools, not the client's functions.",
    );
  }
  const format = (responseFormat as { type?: unknown } | null | undefined)?.type;
  if (format !== undefined && format !== 'text') {
    throw badRequest(
      `'response_format' ${JSON.stringify(format)} is not supported: the agent answers in text (ask for JSON in the message, or give the agent a tool).`,
    );
  }
}
