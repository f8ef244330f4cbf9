import type { AssistantModelMessage, ContentPart, ProviderMetadata, ToolSet } from 'ai';
import { MAX_ARGUMENT_DEPTH, nestedDeeperThan } from '../tools/parse-arguments.ts';
import { toJsonSafe } from '../tools/to-json-safe.ts';

type AssistantPart = Exclude<AssistantModelMessage['content'], string>[number];

/** `providerOptions` only when the provider attached metadata (a thought signature, a cache hint, ...). */
function options(metadata: ProviderMetadata | undefined): { providerOptions?: ProviderMetadata } {
  return metadata === undefined ? {} : { providerOptions: metadata };
}

/**
 * What one model call produced, as the assistant message the conversation keeps — the AI SDK's own rule for response
 * messages: text, reasoning and files in order with their provider metadata (providers need it back: Gemini's
 * thought signatures, Anthropic's signed thinking), tool calls with the input the model sent (`{}` for input that
 * did not parse), and the results of calls the provider ran itself (Anthropic's tool search) in the same message.
 * Sources, and results of calls the runtime runs, are not part of it. Undefined when there is nothing to keep.
 */
export function toAssistantMessage(content: ReadonlyArray<ContentPart<ToolSet>>): AssistantModelMessage | undefined {
  const parts: AssistantPart[] = [];
  for (const part of content) {
    switch (part.type) {
      case 'text':
        if (part.text.length > 0 || part.providerMetadata !== undefined)
          parts.push({ type: 'text', text: part.text, ...options(part.providerMetadata) });
        break;
      case 'reasoning':
        parts.push({ type: 'reasoning', text: part.text, ...options(part.providerMetadata) });
        break;
      case 'custom':
        parts.push({ type: 'custom', kind: part.kind, ...options(part.providerMetadata) });
        break;
      case 'file':
      case 'reasoning-file':
        parts.push({
          type: part.type,
          data: part.file.base64,
          mediaType: part.file.mediaType,
          ...options(part.providerMetadata),
        });
        break;
      case 'tool-call':
        parts.push({
          type: 'tool-call',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          // Input too deep to store (JSON.stringify overflows) is kept as `{}`, as input that did not parse.
          input:
            (part.invalid === true && typeof part.input !== 'object') ||
            nestedDeeperThan(part.input, MAX_ARGUMENT_DEPTH)
              ? {}
              : part.input,
          ...(part.providerExecuted === undefined ? {} : { providerExecuted: part.providerExecuted }),
          ...options(part.providerMetadata),
        });
        break;
      case 'tool-result':
      case 'tool-error':
        if (part.providerExecuted !== true) break;
        parts.push({
          type: 'tool-result',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          output:
            part.type === 'tool-error'
              ? { type: 'error-json', value: toJsonSafe(part.error) }
              : typeof part.output === 'string'
                ? { type: 'text', value: part.output }
                : { type: 'json', value: toJsonSafe(part.output) },
          ...options(part.providerMetadata),
        });
        break;
      default:
        // Sources cite; approval requests of provider-run tools are not used by the runtime.
        break;
    }
  }
  return parts.length === 0 ? undefined : { role: 'assistant', content: parts };
}
