/**
 * Takes each Slack message once (docs/connectors.md#slack). An app subscribed to `app_mention` and to `message.*`
 * gets two deliveries, with different event ids, for one message that mentions it: an `app_mention` and a
 * `message` with the same channel and `ts`. The `app_mention` is the one taken, whichever comes first: a
 * `message` that mentions the app waits up to `holdMs` for it, and is taken only if none comes (an app not
 * subscribed to app_mention, a direct message, where Slack sends none). Any other repeat of a channel and `ts` is
 * skipped. At most `limit` messages are remembered, the oldest forgotten first.
 */
export function oncePerMessage(options: { holdMs: number; limit: number }) {
  // Insertion-ordered: the oldest leaves first.
  const taken = new Set<string>();
  const waiting = new Map<string, Set<() => void>>();

  const take = (key: string) => {
    taken.add(key);
    if (taken.size > options.limit) taken.delete(taken.values().next().value as string);
    for (const wake of waiting.get(key) ?? []) wake();
    return true;
  };
  /** Resolves when `key` is taken or after holdMs, whichever is first. */
  const hold = (key: string) =>
    new Promise<void>((resolve) => {
      const wakers = waiting.get(key) ?? new Set<() => void>();
      waiting.set(key, wakers);
      const done = () => {
        clearTimeout(timer);
        wakers.delete(done);
        if (wakers.size === 0) waiting.delete(key);
        resolve();
      };
      const timer = setTimeout(done, options.holdMs);
      wakers.add(done);
    });

  return {
    /**
     * True when this delivery is the one to emit for the message `key` (channel and ts); false when another
     * delivery of it was taken. `mentionsApp`: a `message` whose text mentions the app, left to its app_mention.
     */
    async take(key: string, mentionsApp: boolean): Promise<boolean> {
      if (taken.has(key)) return false;
      if (!mentionsApp) return take(key);
      await hold(key);
      return taken.has(key) ? false : take(key);
    },
    /** Forgets a message that was taken but not emitted (refused at shutdown): its next delivery is taken. */
    forget(key: string): void {
      taken.delete(key);
    },
  };
}
