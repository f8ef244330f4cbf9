/** Telegram shows "typing…" for about 5 s after sendChatAction; refreshed a little sooner. */
export const TYPING_REFRESH_MS = 4_000;

/**
 * Keeps "typing…" shown in a chat while a turn runs: sends at once, then every TYPING_REFRESH_MS while
 * `paused()` is false (a turn waiting for an approval button is not typing). Failures are ignored: the indicator
 * is a courtesy, never a reason to fail a turn.
 */
export function startTyping(options: { send: () => Promise<unknown>; paused: () => boolean }): () => void {
  const send = () => {
    if (!options.paused()) options.send().catch(() => {});
  };
  send();
  const timer = setInterval(send, TYPING_REFRESH_MS);
  return () => clearInterval(timer);
}
