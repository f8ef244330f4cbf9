import type { Transformer } from 'grammy';
import { waitUnlessAborted } from '../../src/wait-unless-aborted.ts';

/** How often one call is tried again after 429 Too Many Requests or a 5xx before its error goes to the caller. */
export const MAX_RATE_LIMIT_RETRIES = 5;

/**
 * A grammY API transformer: when the Bot API answers 429 with `parameters.retry_after`, waits that many seconds and
 * sends the same call again (at most MAX_RATE_LIMIT_RETRIES times), so a burst of replies slows down instead of
 * losing messages; a 5xx (Telegram's `Bad Gateway` while it restarts) is sent again after 1 s, then 2, 4, …, as
 * Connector/slack does. getUpdates is left alone: grammY's polling loop already waits out its own failures.
 * `signal` (the channel's) ends a wait early; the last answer is then returned as it came.
 */
export function honourRetryAfter(options: {
  signal: AbortSignal;
  onWait?: (method: string, seconds: number, why: string) => void;
}) {
  const transformer: Transformer = async (prev, method, payload, callSignal) => {
    let response = await prev(method, payload, callSignal);
    for (let attempt = 0; attempt < MAX_RATE_LIMIT_RETRIES && method !== 'getUpdates'; attempt++) {
      if (response.ok || (response.error_code !== 429 && response.error_code < 500)) break;
      const seconds = response.error_code === 429 ? (response.parameters?.retry_after ?? 1) : 2 ** attempt;
      options.onWait?.(
        method,
        seconds,
        response.error_code === 429 ? 'rate-limited' : `answered ${response.error_code}`,
      );
      if (!(await waitUnlessAborted(seconds * 1000, options.signal))) break;
      response = await prev(method, payload, callSignal);
    }
    return response;
  };
  return transformer;
}
