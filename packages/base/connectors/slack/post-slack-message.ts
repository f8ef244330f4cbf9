// chat.postMessage for Connector/slack (docs/connectors.md#slack): bounded in time, waiting out Slack's rate limit.
import { splitMessage } from '../../extensions/telegram/split-message.ts';
import { waitUnlessAborted } from '../../src/wait-unless-aborted.ts';

/** How often a post is tried again after 429 (waiting Retry-After) or a 5xx (waiting a second, then two, …). */
export const MAX_POST_RETRIES = 5;
/** One attempt gives up after this long: a Web API that never answers does not hold the reply for ever. */
export const POST_TIMEOUT_MS = 30_000;
/** Slack truncates a message's text beyond 40,000 characters: longer replies go as consecutive messages. */
export const MAX_TEXT_CHARS = 40_000;

export interface PostOutcome {
  ok: boolean;
  /** Slack's `error`, the HTTP status, or what failed (a timeout, the network). */
  error?: string;
}

/**
 * Posts `text` to a channel's thread, in parts of at most MAX_TEXT_CHARS (cut as Telegram replies are). A 429 is waited out (its Retry-After
 * seconds) and a 5xx or a network failure retried with a growing pause, at most MAX_POST_RETRIES times per part;
 * `signal` (the connector's) ends a wait early. Slack's own refusals (`ok: false` with 200, such as
 * channel_not_found) are not retried.
 */
export async function postSlackMessage(options: {
  apiRoot: string;
  token: string;
  channel: string;
  threadTs: string | undefined;
  text: string;
  signal: AbortSignal;
  onWait?: (seconds: number, why: string) => void;
}): Promise<PostOutcome> {
  // Cut at a paragraph, line or word break where there is one, never inside a character (a surrogate pair).
  for (const part of splitMessage(options.text, MAX_TEXT_CHARS)) {
    const outcome = await postPart({ ...options, text: part });
    if (!outcome.ok) return outcome;
  }
  return { ok: true };
}

async function postPart(options: Parameters<typeof postSlackMessage>[0]): Promise<PostOutcome> {
  const body = JSON.stringify({
    channel: options.channel,
    text: options.text,
    ...(options.threadTs ? { thread_ts: options.threadTs } : {}),
  });
  let outcome: PostOutcome = { ok: false, error: 'not sent' };
  for (let attempt = 0; attempt <= MAX_POST_RETRIES; attempt++) {
    let waitSeconds: number;
    try {
      const response = await fetch(`${options.apiRoot}/chat.postMessage`, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${options.token}` },
        body,
        signal: AbortSignal.any([options.signal, AbortSignal.timeout(POST_TIMEOUT_MS)]),
      });
      const answer = (await response.json().catch(() => null)) as { ok?: boolean; error?: string } | null;
      if (response.ok && answer?.ok) return { ok: true };
      // Slack's own `error` when it gave one; else the status, and whether the body was Slack's JSON at all.
      const what = answer === null ? "the answer is not Slack's JSON" : 'no error given';
      outcome = { ok: false, error: answer?.error ?? `HTTP ${response.status}: ${what}` };
      if (response.status === 429) waitSeconds = Math.max(1, Number(response.headers.get('retry-after')) || 1);
      else if (response.status >= 500) waitSeconds = 2 ** attempt;
      else return outcome;
    } catch (thrown) {
      if (options.signal.aborted) return { ok: false, error: 'the connector is stopping' };
      const timedOut = (thrown as Error)?.name === 'TimeoutError';
      outcome = { ok: false, error: timedOut ? `no answer within ${POST_TIMEOUT_MS} ms` : String(thrown) };
      waitSeconds = 2 ** attempt;
    }
    if (attempt === MAX_POST_RETRIES) break;
    options.onWait?.(waitSeconds, outcome.error ?? 'failed');
    if (!(await waitUnlessAborted(waitSeconds * 1000, options.signal))) break;
  }
  return outcome;
}
