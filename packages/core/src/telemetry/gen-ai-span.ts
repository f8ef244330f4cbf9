import type { SpanRecord } from '../store/trace-store.ts';
import type { JsonValue } from '../types.ts';

/** A stored span as OpenTelemetry sees it: GenAI semantic-convention name and attributes, Goondan's beside them. */
export interface GenAiSpanView {
  name: string;
  /** `client` for a model call (it leaves the process), `internal` otherwise. */
  kind: 'internal' | 'client';
  attributes: Record<string, JsonValue>;
}

/** Provider and model of a model span: its attributes, or (spans stored before they were kept) its name. */
export function modelOf(span: SpanRecord): { provider: string; model: string } {
  const { attributes } = span;
  if (typeof attributes.provider === 'string' && typeof attributes.model === 'string') {
    return { provider: attributes.provider, model: attributes.model };
  }
  // `model openai.chat:gpt-4o`: the provider is what comes before the first colon.
  const named = span.name.replace(/^model\s+/, '');
  const colon = named.indexOf(':');
  return colon > 0
    ? { provider: named.slice(0, colon), model: named.slice(colon + 1) }
    : { provider: '', model: named };
}

/** `openai.chat` → `openai`: gen_ai.provider.name takes the provider's well-known name, not the AI SDK's variant. */
function providerName(provider: string): string {
  return provider.split('.')[0] ?? provider;
}

const number = (value: JsonValue | undefined): number | undefined => (typeof value === 'number' ? value : undefined);

function put(target: Record<string, JsonValue>, key: string, value: JsonValue | undefined): void {
  if (value !== undefined && value !== null && value !== '') target[key] = value;
}

/**
 * Maps a stored span to the OpenTelemetry GenAI semantic conventions: a turn is `invoke_agent {agent}`, a model
 * call `chat {model}`, a tool call `execute_tool {tool}`; a step (no convention) stays `step N`. Every stored
 * attribute is kept as `goondan.<name>`, with `goondan.span.kind` and `goondan.span.status`.
 *
 * @example
 * genAiSpan(toolSpan).name // 'execute_tool bash__exec'
 */
export function genAiSpan(span: SpanRecord): GenAiSpanView {
  const { attributes } = span;
  const out: Record<string, JsonValue> = {};
  let name = span.name;
  let kind: GenAiSpanView['kind'] = 'internal';
  const inputTokens = number(attributes.inputTokens);
  const outputTokens = number(attributes.outputTokens);
  if (span.kind === 'turn') {
    const agent = typeof attributes.agent === 'string' ? attributes.agent : span.name.replace(/^turn\s+/, '');
    name = `invoke_agent ${agent}`;
    put(out, 'gen_ai.operation.name', 'invoke_agent');
    put(out, 'gen_ai.agent.name', agent);
    if (typeof attributes.instance === 'string') put(out, 'gen_ai.conversation.id', `${agent}/${attributes.instance}`);
  } else if (span.kind === 'model') {
    const { provider, model } = modelOf(span);
    name = `chat ${model}`;
    kind = 'client';
    put(out, 'gen_ai.operation.name', 'chat');
    put(out, 'gen_ai.provider.name', providerName(provider));
    put(out, 'gen_ai.request.model', model);
    if (typeof attributes.finishReason === 'string')
      put(out, 'gen_ai.response.finish_reasons', [attributes.finishReason]);
    put(out, 'gen_ai.usage.cache_read.input_tokens', number(attributes.cacheReadTokens));
    put(out, 'gen_ai.usage.cache_creation.input_tokens', number(attributes.cacheWriteTokens));
  } else if (span.kind === 'tool') {
    const tool = typeof attributes.toolName === 'string' ? attributes.toolName : span.name.replace(/^tool\s+/, '');
    name = `execute_tool ${tool}`;
    put(out, 'gen_ai.operation.name', 'execute_tool');
    put(out, 'gen_ai.tool.name', tool);
    put(out, 'gen_ai.tool.type', 'function');
    put(out, 'gen_ai.tool.call.id', typeof attributes.toolCallId === 'string' ? attributes.toolCallId : undefined);
  }
  if (span.kind === 'turn' || span.kind === 'model') {
    put(out, 'gen_ai.usage.input_tokens', inputTokens);
    put(out, 'gen_ai.usage.output_tokens', outputTokens);
  }
  const errorCode = attributes.errorCode ?? attributes['error.code'];
  if (span.status === 'error') put(out, 'error.type', typeof errorCode === 'string' ? errorCode : '_OTHER');
  for (const [key, value] of Object.entries(attributes))
    out[key.startsWith('goondan.') ? key : `goondan.${key}`] = value;
  out['goondan.span.kind'] = span.kind;
  out['goondan.span.status'] = span.status;
  return { name, kind, attributes: out };
}
