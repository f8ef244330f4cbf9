import { APICallError, type LanguageModelV4, type SharedV4Warning } from '@ai-sdk/provider';
import type { ModelMessage as AiModelMessage, ToolSet, TypedToolCall } from 'ai';
import { untilAborted } from '../agent/until-aborted.ts';
import { GoondanError } from '../errors/goondan-error.ts';
import { aiSdk, providerUtils } from './ai-sdk.ts';
import type { ModelCallSettings } from './model-call-settings.ts';
import { DEFAULT_MODEL_IDLE_TIMEOUT_MS, type ModelCallWatchdog, modelCallWatchdog } from './model-call-watchdog.ts';
import type { PromptCache } from './prompt-cache.ts';
import { toAssistantMessage } from './to-assistant-message.ts';

/** One failed attempt of a model call that is about to be tried again. */
export interface ModelRetryNotice {
  /** The attempt that failed, from 1. */
  attempt: number;
  /** Attempts in all: maxRetries + 1. */
  maxAttempts: number;
  message: string;
  /** How long until the next attempt: the backoff, or what the provider's retry-after header asked. */
  delayMs: number;
}

export interface ModelStepRequest {
  model: LanguageModelV4;
  instructions?: string;
  messages: AiModelMessage[];
  tools: ToolSet;
  settings?: ModelCallSettings;
  abortSignal: AbortSignal;
  onTextDelta?: (text: string) => void;
  /** Each failed attempt that will be retried, as it happens (the waits grow: 2 s, 4 s, ...). */
  onRetry?: (notice: ModelRetryNotice) => void;
  /**
   * The conversation's messages as the model received them last time, so only the messages added since are
   * converted: those after the same message objects as last time (prompt-cache.ts).
   */
  promptCache?: PromptCache;
}

export interface ModelStepUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

export interface ModelStepResult {
  text: string;
  /** The AI SDK's unified finish reason: stop, tool-calls, length, ... ('unknown' when the stream had no finish). */
  finishReason: string;
  usage: ModelStepUsage;
  /** Every tool call of the response, as the AI SDK parsed it (invalid ones and provider-executed ones included). */
  toolCalls: TypedToolCall<ToolSet>[];
  /** The response as conversation messages: one assistant message, or none when the model said nothing. */
  messages: AiModelMessage[];
  /** What the provider said it ignored or changed: settings it does not support, compatibility modes. */
  warnings: string[];
}

/** A provider's warning as one line: "topK is not supported (details)". */
export function describeModelWarning(warning: SharedV4Warning): string {
  if (warning.type === 'other') return warning.message;
  if (warning.type === 'deprecated') return `${warning.setting} is deprecated: ${warning.message}`;
  const what = warning.type === 'unsupported' ? 'is not supported' : 'runs in a compatibility mode';
  return `${warning.feature} ${what}${warning.details ? ` (${warning.details})` : ''}`;
}

/**
 * Longest wait between two attempts: what a provider's retry-after header may ask for, and where the doubling
 * backoff stops (a large `maxRetries` retries once a minute instead of waiting days, or overflowing the timer —
 * a delay past 2^31 ms fires at once — and calling the provider in a tight loop).
 */
const MAX_RETRY_WAIT_MS = 60_000;

/**
 * The most text, reasoning and tool input one answer may carry (characters): about two million tokens, far above any
 * model's output limit. A server streaming without end would otherwise fill the memory, the conversation and the
 * terminal with it.
 */
export const MAX_ANSWER_CHARS = 8 * 1024 * 1024;

/** How long a provider asked to wait before the next attempt (retry-after-ms, retry-after), or the backoff. */
export function retryDelayMs(error: unknown, backoffMs: number, now = Date.now()): number {
  const backoff = Math.min(backoffMs, MAX_RETRY_WAIT_MS);
  const headers = APICallError.isInstance(error) ? error.responseHeaders : undefined;
  if (!headers) return backoff;
  let ms: number | undefined;
  const afterMs = Number.parseFloat(headers['retry-after-ms'] ?? '');
  if (!Number.isNaN(afterMs)) ms = afterMs;
  const after = headers['retry-after'];
  if (ms === undefined && after) {
    const seconds = Number.parseFloat(after);
    ms = Number.isNaN(seconds) ? Date.parse(after) - now : seconds * 1000;
  }
  return ms !== undefined && !Number.isNaN(ms) && ms >= 0 && ms < MAX_RETRY_WAIT_MS ? ms : backoff;
}

/**
 * One model call of a Step: the AI SDK converts the prompt and the tools and parses the tool calls
 * (`experimental_streamLanguageModelCall`), and this drives it — retries, text deltas, the response message — with
 * none of `streamText`'s loop machinery (stop conditions, tool execution, step results, result promises), which the
 * runtime's own turn loop replaces: per step that machinery cost more than all of our own work
 * (docs/performance.md#a-step).
 *
 * Retries follow the AI SDK's rule: a retryable API call error (HTTP 408/409/429/5xx, a connection dropped before the
 * answer) is tried again up to `settings.maxRetries` times (default 2) after 2 s, 4 s, ... up to a minute, or
 * what the provider's retry-after header asks when that is under a minute; once they are used up the error is a
 * RetryError holding every attempt's error. An error in the middle of the stream is not retried (part of the answer
 * was seen).
 *
 * Throws the model's error (a stream error part, or the call's own failure); an abort rejects with the abort error.
 */
export async function streamModelStep(request: ModelStepRequest): Promise<ModelStepResult> {
  const { idleTimeoutMs = DEFAULT_MODEL_IDLE_TIMEOUT_MS, ...settings } = request.settings ?? {};
  const watchdog = modelCallWatchdog(idleTimeoutMs, request.abortSignal);
  try {
    // The watchdog's error ends the call even when a model ignores its abort signal.
    return await untilAborted(callModel({ ...request, settings }, watchdog), watchdog.failed);
  } finally {
    watchdog.close();
  }
}

async function callModel(request: ModelStepRequest, watchdog: ModelCallWatchdog): Promise<ModelStepResult> {
  const sdk = aiSdk();
  const { retryWithExponentialBackoff } = providerUtils();
  const { maxRetries = 2, providerOptions, ...callSettings } = request.settings ?? {};
  let attempt = 0;
  const retry = retryWithExponentialBackoff({
    maxRetries,
    abortSignal: watchdog.signal,
    shouldRetry: (error) => APICallError.isInstance(error) && error.isRetryable,
    getDelayInMs: ({ error, exponentialBackoffDelay }) => {
      const delayMs = retryDelayMs(error, exponentialBackoffDelay);
      watchdog.pause();
      try {
        request.onRetry?.({
          attempt,
          maxAttempts: maxRetries + 1,
          message: error instanceof Error ? error.message : String(error),
          delayMs,
        });
      } catch {
        // An observer cannot break the call.
      }
      return delayMs;
    },
    createRetryError: (options) => new sdk.RetryError(options),
  });
  let content: Parameters<typeof toAssistantMessage>[0] | undefined;
  const prompt = request.promptCache ? request.promptCache.prepare(request.model, request.messages) : request;
  const { stream } = await retry(() => {
    attempt += 1;
    watchdog.alive();
    return sdk.experimental_streamLanguageModelCall({
      model: prompt.model,
      tools: request.tools,
      messages: prompt.messages,
      ...(request.instructions ? { instructions: request.instructions } : {}),
      ...(providerOptions ? { providerOptions } : {}),
      abortSignal: watchdog.signal,
      ...callSettings,
      // What the model produced, as the SDK collected it (text and reasoning merged per part, files resolved).
      onLanguageModelCallEnd: (event) => {
        content = event.content;
      },
    });
  });
  let text = '';
  let finishReason = 'unknown';
  const usage: ModelStepUsage = { inputTokens: 0, outputTokens: 0 };
  const toolCalls: TypedToolCall<ToolSet>[] = [];
  let streamError: unknown;
  let warnings: string[] = [];
  let size = 0;
  for await (const part of stream) {
    watchdog.alive();
    if (part.type === 'text-delta' || part.type === 'reasoning-delta') size += part.text.length;
    else if (part.type === 'tool-input-delta') size += part.delta.length;
    if (size > MAX_ANSWER_CHARS) {
      const error = new GoondanError(
        'E_MODEL_CALL_FAILED',
        `The model's answer passed ${MAX_ANSWER_CHARS} characters of text and tool input, so the call was given up (no model writes that much: a broken or hostile server).`,
      );
      watchdog.fail(error);
      throw error;
    }
    if (part.type === 'text-delta') {
      text += part.text;
      request.onTextDelta?.(part.text);
    } else if (part.type === 'tool-call') toolCalls.push(part);
    else if (part.type === 'model-call-end') {
      finishReason = part.finishReason;
      usage.inputTokens = part.usage.inputTokens ?? 0;
      usage.outputTokens = part.usage.outputTokens ?? 0;
      const { cacheReadTokens, cacheWriteTokens } = part.usage.inputTokenDetails ?? {};
      if (typeof cacheReadTokens === 'number') usage.cacheReadTokens = cacheReadTokens;
      if (typeof cacheWriteTokens === 'number') usage.cacheWriteTokens = cacheWriteTokens;
    } else if (part.type === 'model-call-start') warnings = part.warnings.map(describeModelWarning);
    else if (part.type === 'error') streamError ??= part.error;
  }
  if (streamError !== undefined) throw streamError;
  // A stream that ended without its finish part: what arrived is the answer.
  content ??= [...(text ? [{ type: 'text' as const, text }] : []), ...toolCalls];
  const assistant = toAssistantMessage(content);
  return { text, finishReason, usage, toolCalls, messages: assistant ? [assistant] : [], warnings };
}
