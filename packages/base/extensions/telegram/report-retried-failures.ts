import type { Transformer } from 'grammy';

/** The calls grammY retries by itself, without a word: the long poll, and dropping a webhook before it starts. */
const RETRIED_BY_GRAMMY = new Set(['getUpdates', 'deleteWebhook']);

/**
 * A grammY API transformer for the calls grammY retries on its own (getUpdates every 3 s, deleteWebhook at start):
 * the first failure of a run goes to `onFailing` (an answer that is not the Bot API's JSON, a 5xx, the network) and
 * the next success to `onRecovered`, so a Bot API answering garbage shows in the log instead of a bot that is
 * silently deaf. A refused token (401) or another poller (409) end polling and are reported by the caller; a call
 * aborted because the bot stops is not a failure.
 */
export function reportRetriedFailures(options: {
  describe: (thrown: unknown) => string;
  onFailing: (method: string, why: string) => void;
  onRecovered: (method: string) => void;
}): Transformer {
  const failing = new Set<string>();
  const failed = (method: string, why: string) => {
    if (!failing.has(method)) options.onFailing(method, why);
    failing.add(method);
  };
  return async (prev, method, payload, signal) => {
    if (!RETRIED_BY_GRAMMY.has(method)) return prev(method, payload, signal);
    try {
      const response = await prev(method, payload, signal);
      if (response.ok) {
        if (failing.delete(method)) options.onRecovered(method);
      } else if (response.error_code !== 401 && response.error_code !== 409) {
        failed(method, `${response.error_code} ${response.description}`);
      }
      return response;
    } catch (thrown) {
      if (!signal?.aborted) failed(method, options.describe(thrown));
      throw thrown;
    }
  };
}
