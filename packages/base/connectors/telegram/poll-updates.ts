import { type Bot, BotError, GrammyError } from 'grammy';
import { waitUnlessAborted } from '../../src/wait-unless-aborted.ts';

/** How long a failed Bot API call of the poll waits before it is tried again, as grammY's bot.start does. */
const RETRY_SECONDS = 3;

/** Whether the middleware of an update threw the host's refusal (ctx.emit at shutdown): the update was not taken. */
function refused(thrown: unknown): boolean {
  const cause = thrown instanceof BotError ? thrown.error : thrown;
  return (cause as { code?: unknown } | null)?.code === 'E_AGENT_SHUTTING_DOWN';
}

/**
 * A Bot API call of the poll, tried again every 3 s (after `retry_after` for a 429) until it is answered or
 * `signal` aborts (undefined then). A refused token (401) and another poller (409) are thrown, as grammY does.
 */
async function retrying<T>(call: () => Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  while (!signal.aborted) {
    try {
      return await call();
    } catch (thrown) {
      if (signal.aborted) return undefined;
      if (thrown instanceof GrammyError && (thrown.error_code === 401 || thrown.error_code === 409)) throw thrown;
      const limited = thrown instanceof GrammyError && thrown.error_code === 429;
      await waitUnlessAborted(((limited && thrown.parameters.retry_after) || RETRY_SECONDS) * 1000, signal);
    }
  }
  return undefined;
}

/**
 * Long-polls getUpdates and runs `bot`'s middleware on each update in turn, as grammY's bot.start does, except
 * that Telegram is told only of updates the host took (docs/connectors.md#telegram). Telegram forgets an update
 * once getUpdates asks for an offset past it; bot.start asks past every update it has tried, taken or not. Here
 * the offset moves past an update once its middleware has run: an update whose event the host refused (it is
 * shutting down) ends the poll, and it and those after it stay with Telegram, fetched again at the next start. An
 * update whose middleware failed otherwise goes to `onError` and is passed (it would fail again). When `signal`
 * aborts, the poll ends after the update being handled; either way the updates taken are confirmed before it
 * returns. Resolves to the id of the update left with Telegram (refused), if any.
 */
export async function pollUpdates(options: {
  bot: Bot;
  timeoutSeconds: number;
  allowedUpdates: readonly ('message' | 'callback_query')[];
  signal: AbortSignal;
  onError(error: unknown): void;
}): Promise<number | undefined> {
  const { bot, signal } = options;
  // grammY types its signal as its abort-controller shim's; the platform's is what it gets at run time.
  const callSignal = signal as unknown as Parameters<Bot['api']['getUpdates']>[1];
  /** The first update not taken; everything before it was taken. */
  let offset: number | undefined;
  /** The offset Telegram was last asked for: what it has forgotten. */
  let confirmed: number | undefined;
  let left: number | undefined;
  // A bot that had a webhook set gets no updates by polling until it is removed (bot.start does the same).
  await retrying(() => bot.api.deleteWebhook(undefined, callSignal), signal);
  polling: while (!signal.aborted) {
    const asked = offset;
    const updates = await retrying(
      () =>
        bot.api.getUpdates(
          { offset, timeout: options.timeoutSeconds, allowed_updates: options.allowedUpdates },
          callSignal,
        ),
      signal,
    );
    if (updates === undefined) break;
    confirmed = asked;
    for (const update of updates) {
      try {
        await bot.handleUpdate(update);
      } catch (thrown) {
        if (refused(thrown)) {
          left = update.update_id;
          break polling;
        }
        options.onError(thrown);
      }
      offset = update.update_id + 1;
      if (signal.aborted) break polling;
    }
  }
  // limit 1, timeout 0: what this answers stays unconfirmed, and is fetched again at the next start.
  if (offset !== undefined && offset !== confirmed)
    await bot.api.getUpdates({ offset, limit: 1, timeout: 0 }).catch((thrown) => options.onError(thrown));
  return left;
}
