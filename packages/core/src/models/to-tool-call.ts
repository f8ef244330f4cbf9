import type { ToolSet, TypedToolCall } from 'ai';
import type { JsonObject, ToolCall } from '../types.ts';
import { aiSdk } from './ai-sdk.ts';

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A tool call as the AI SDK parsed it (a `tool-call` part of the model call's stream) → our ToolCall, keeping
 * what the model actually sent so the executor, not the SDK, decides the outcome:
 *
 * - the name is the model's raw tool name, also for a tool that does not exist (the SDK marks those
 *   `invalid: true` with a NoSuchToolError; our catalog guard answers E_TOOL_NOT_IN_CATALOG);
 * - unparsable input (`invalid: true` with an InvalidToolInputError) becomes the raw string the model sent, which
 *   the executor refuses with E_TOOL_INVALID_ARGS;
 * - parsed input that is not an object (an array, a number, a JSON string) is passed as its JSON text, so the
 *   executor refuses it rather than reading a string as JSON a second time.
 *
 * Tools built with `jsonSchema(parameters)` and no `validate` are not checked by the SDK, so input that breaks the
 * schema arrives as an ordinary object and is checked by the executor.
 */
export function toToolCall(call: TypedToolCall<ToolSet>): ToolCall {
  const { toolCallId: id, toolName: name, input } = call;
  if (call.invalid === true && aiSdk().InvalidToolInputError.isInstance(call.error))
    return { id, name, args: call.error.toolInput };
  if (isPlainObject(input)) return { id, name, args: input };
  if (call.invalid === true && typeof input === 'string') return { id, name, args: input };
  return { id, name, args: JSON.stringify(input) ?? '' };
}
