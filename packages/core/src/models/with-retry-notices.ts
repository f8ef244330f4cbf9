import { APICallError, type LanguageModelV4 } from '@ai-sdk/provider';

/** One failed attempt of a model call that the AI SDK is about to retry. */
export interface ModelRetryNotice {
  /** The attempt that failed, from 1. */
  attempt: number;
  /** Attempts in all: maxRetries + 1. */
  maxAttempts: number;
  message: string;
}

/** The AI SDK's rule (retry-with-exponential-backoff): only retryable API call errors are tried again. */
function willRetry(thrown: unknown): boolean {
  return APICallError.isInstance(thrown) && thrown.isRetryable;
}

/**
 * The model with each failed attempt reported while the AI SDK retries it (it retries silently, with growing
 * waits, so a server that is down would otherwise show nothing for seconds). Wrap per call: attempts are counted
 * from the first `doStream`/`doGenerate` of this wrapper.
 */
export function withRetryNotices(
  model: LanguageModelV4,
  options: { maxRetries: number; onRetry: (notice: ModelRetryNotice) => void },
): LanguageModelV4 {
  let attempt = 0;
  const maxAttempts = options.maxRetries + 1;
  const observe = async <T>(call: () => PromiseLike<T>): Promise<T> => {
    attempt += 1;
    try {
      return await call();
    } catch (thrown) {
      if (attempt < maxAttempts && willRetry(thrown)) {
        const message = thrown instanceof Error ? thrown.message : String(thrown);
        try {
          options.onRetry({ attempt, maxAttempts, message });
        } catch {
          // An observer cannot break the call.
        }
      }
      throw thrown;
    }
  };
  return new Proxy(model, {
    get(target, key, receiver) {
      if (key === 'doStream') return (callOptions: never) => observe(() => target.doStream(callOptions));
      if (key === 'doGenerate') return (callOptions: never) => observe(() => target.doGenerate(callOptions));
      return Reflect.get(target, key, receiver);
    },
  });
}
