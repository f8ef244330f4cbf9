import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4FunctionTool,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { APICallError } from '@ai-sdk/provider';

/** One tool call a scripted step makes. `args` given as a string is sent verbatim, so tests can send broken JSON. */
export interface ScriptedToolCall {
  name: string;
  args?: object | string;
  id?: string;
}

/** What the scripted model answers to one call. */
export interface ScriptedStep {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** Fail this call the way a provider does: an APICallError (status 500, not retryable) with this message. */
  error?: string;
  /** Wait this long before answering; an abort during the wait rejects with an AbortError. */
  delayMs?: number;
}

/** What the model was asked in one call, so tests can assert on exactly what the model saw. */
export interface ScriptedModelCall {
  /** Index of the step that answered, or -1 once the script had run out. */
  step: number;
  mode: 'generate' | 'stream';
  prompt: LanguageModelV4Prompt;
  toolNames: string[];
  tools: LanguageModelV4FunctionTool[];
  /** Everything else the SDK passed: temperature, maxOutputTokens, toolChoice, providerOptions, ... */
  settings: Omit<LanguageModelV4CallOptions, 'prompt' | 'tools' | 'abortSignal' | 'headers'>;
}

export interface ScriptedModelOptions {
  modelId?: string;
  /**
   * How many of the latest calls `calls` keeps (default: every one). Each holds its whole prompt, so a model that
   * answers for a long time (a Model declared in YAML, under `gdn serve`) keeps a few.
   */
  keepCalls?: number;
}

/** A LanguageModelV4 that plays back steps, recording each call it receives. */
export interface ScriptedModel extends LanguageModelV4 {
  /** The calls received, oldest first (the latest `keepCalls` of them when that is set). */
  readonly calls: ScriptedModelCall[];
  /** Steps not played yet. */
  readonly remainingSteps: number;
}

/**
 * A stand-in for a language model in tests and demos. It is NOT a language model: it reads nothing and decides
 * nothing, it plays back `steps` in order, one per call (doGenerate or doStream), whatever the prompt says. When
 * the steps run out it answers with a text saying the script has ended instead of throwing. Token usage is a
 * rough estimate (characters / 4), not a count.
 *
 * @example
 * const model = createScriptedModel([
 *   { toolCalls: [{ name: 'greet__hello', args: { name: 'Ada' } }] },
 *   { text: 'Said hello to Ada.' },
 * ]);
 * const result = streamText({ model, prompt: 'Greet Ada', tools });
 * // model.calls[0].toolNames → ['greet__hello']
 */
export function createScriptedModel(steps: readonly ScriptedStep[], options: ScriptedModelOptions = {}): ScriptedModel {
  const modelId = options.modelId ?? 'scripted';
  const calls: ScriptedModelCall[] = [];
  const keepCalls = options.keepCalls ?? Number.POSITIVE_INFINITY;
  /** Calls received, including those no longer kept. */
  let received = 0;
  let cursor = 0;

  async function play(callOptions: LanguageModelV4CallOptions, mode: ScriptedModelCall['mode']) {
    const index = cursor < steps.length ? cursor++ : -1;
    received += 1;
    const callNumber = received;
    const step = index >= 0 ? steps[index]! : { text: endedText(steps.length, callNumber) };
    const { prompt, tools = [], abortSignal, headers: _headers, ...settings } = callOptions;
    if (calls.length >= keepCalls) calls.splice(0, calls.length - keepCalls + 1);
    if (keepCalls > 0)
      calls.push({
        step: index,
        mode,
        prompt,
        toolNames: tools.map((tool) => tool.name),
        tools: tools.filter((tool): tool is LanguageModelV4FunctionTool => tool.type === 'function'),
        settings,
      });
    await wait(step.delayMs ?? 0, abortSignal);
    if (step.error !== undefined) {
      throw new APICallError({
        message: step.error,
        url: `scripted://${modelId}`,
        requestBodyValues: { step: index },
        statusCode: 500,
        isRetryable: false,
      });
    }
    const toolCalls = (step.toolCalls ?? []).map((call, position) => ({
      toolCallId: call.id ?? `call_${callNumber}_${position}`,
      toolName: call.name,
      input: typeof call.args === 'string' ? call.args : JSON.stringify(call.args ?? {}),
    }));
    const text = step.text ?? '';
    return {
      text,
      toolCalls,
      finishReason: finishReasonOf(toolCalls.length > 0),
      usage: usageOf(JSON.stringify(prompt), text + toolCalls.map((call) => call.input).join('')),
      response: { id: `scripted-${callNumber}`, modelId, timestamp: new Date() },
    };
  }

  return {
    specificationVersion: 'v4',
    provider: 'scripted',
    modelId,
    supportedUrls: {},
    calls,
    get remainingSteps() {
      return steps.length - cursor;
    },
    async doGenerate(callOptions): Promise<LanguageModelV4GenerateResult> {
      const answer = await play(callOptions, 'generate');
      const content: LanguageModelV4Content[] = [];
      if (answer.text) content.push({ type: 'text', text: answer.text });
      for (const call of answer.toolCalls) content.push({ type: 'tool-call', ...call });
      return {
        content,
        finishReason: answer.finishReason,
        usage: answer.usage,
        warnings: [],
        response: answer.response,
      };
    },
    async doStream(callOptions): Promise<LanguageModelV4StreamResult> {
      const answer = await play(callOptions, 'stream');
      const parts: LanguageModelV4StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'response-metadata', ...answer.response },
      ];
      if (answer.text) {
        parts.push({ type: 'text-start', id: 'text-0' });
        for (const delta of splitInto(answer.text, 3)) parts.push({ type: 'text-delta', id: 'text-0', delta });
        parts.push({ type: 'text-end', id: 'text-0' });
      }
      for (const call of answer.toolCalls) {
        parts.push({ type: 'tool-input-start', id: call.toolCallId, toolName: call.toolName });
        for (const delta of splitInto(call.input, 2))
          parts.push({ type: 'tool-input-delta', id: call.toolCallId, delta });
        parts.push({ type: 'tool-input-end', id: call.toolCallId });
        parts.push({ type: 'tool-call', ...call });
      }
      parts.push({ type: 'finish', finishReason: answer.finishReason, usage: answer.usage });
      const stream = new ReadableStream<LanguageModelV4StreamPart>({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      });
      return { stream };
    },
  };
}

function endedText(stepCount: number, callNumber: number): string {
  return `[scripted model] The script has ended: all ${stepCount} steps were played, so call ${callNumber} has nothing scripted.`;
}

function finishReasonOf(hasToolCalls: boolean): LanguageModelV4FinishReason {
  return hasToolCalls ? { unified: 'tool-calls', raw: 'tool_calls' } : { unified: 'stop', raw: 'stop' };
}

function usageOf(input: string, output: string): LanguageModelV4Usage {
  const inputTokens = Math.ceil(input.length / 4);
  const outputTokens = Math.ceil(output.length / 4);
  return {
    inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: outputTokens, text: outputTokens, reasoning: undefined },
  };
}

/** Up to `count` non-empty pieces, cut on code points so no surrogate pair is split. */
function splitInto(text: string, count: number): string[] {
  const codePoints = Array.from(text);
  const size = Math.max(1, Math.ceil(codePoints.length / count));
  const pieces: string[] = [];
  for (let start = 0; start < codePoints.length; start += size)
    pieces.push(codePoints.slice(start, start + size).join(''));
  return pieces;
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('The operation was aborted.', 'AbortError');
}

/** Resolves after `ms`; rejects at once, like fetch, when the signal is or becomes aborted. */
function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortError(signal));
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
