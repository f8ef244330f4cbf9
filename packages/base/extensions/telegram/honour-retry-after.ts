import type { Transformer } from 'grammy';
import { waitUnlessAborted } from '../../src/wait-unless-aborted.ts';

/** How often one call is tried again after 429 Too Many Requests before its error is given up to the caller. */
export const MAX_RATE_LIMIT_RETRIES = 5;

/**
 * A grammY API transformer: when the Bot API answers 429 with `parameters.retry_after`, waits that many seconds and
 * sends the same call again (at most MAX_RATE_LIMIT_RETRIES times), so a burst of replies slows down instead of
 * losing messages. getUpdates is left alone: grammY's polling loop already waits out its own 429s. `signal` (the
 * channel's) ends a wait early; the 429 is then returned as it came.
 */
export function honourRetryAfter(options: { signal: AbortSignal; onWait?: (method: string, seconds: number) => void }) {
  const transformer: Transformer = async (prev, method, payload, callSignal) => {
    let response = await prev(method, payload, callSignal);
    for (let attempt = 0; attempt < MAX_RATE_LIMIT_RETRIES && method !== 'getUpdates'; attempt++) {
      if (response.ok || response.error_code !== 429) break;
      const seconds = response.parameters?.retry_after ?? 1;
      options.onWait?.(method, seconds);
      if (!(await waitUnlessAborted(seconds * 1000, options.signal))) break;
      response = await prev(method, payload, callSignal);
    }
    return response;
  };
  return transformer;
}
