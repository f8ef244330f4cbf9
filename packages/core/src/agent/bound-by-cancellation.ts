/** How long a cancelled turn's (or step's) middleware may still take once our own part of it has ended. */
export const CANCELLED_CHAIN_GRACE_MS = 2_000;

/** Where a chain's core says it started (its promise), and is told it must no longer start. */
export interface ChainCore<T> {
  core?: Promise<T>;
  givenUp?: boolean;
}

/**
 * A turn's or step's middleware chain, bounded by its cancellation: a turn or step middleware that never answers (an
 * await that never settles, a `next()` never called) must not hold a cancelled turn, and every turn queued behind
 * it, forever. When `signal` aborts, our own core (the steps, the model call and tools), which sees the signal and
 * ends soon, is waited for; once it has ended (or if it never started), the middleware has CANCELLED_CHAIN_GRACE_MS
 * more to answer, then `cancelled(coreResult)` answers for the chain and a later `next()` does not start the core.
 * Until the signal aborts this adds one listener and nothing else.
 */
export function boundByCancellation<T>(
  chain: Promise<T>,
  holder: ChainCore<T>,
  signal: AbortSignal,
  cancelled: (core: T | undefined) => T,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = () => {
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    };
    const giveUp = (core: T | undefined) => {
      if (settled) return;
      timer = setTimeout(() => {
        if (settled) return;
        done();
        holder.givenUp = true;
        resolve(cancelled(core));
      }, CANCELLED_CHAIN_GRACE_MS);
    };
    function onAbort() {
      const core = holder.core;
      if (!core) giveUp(undefined);
      else
        core.then(
          (value) => giveUp(value),
          () => giveUp(undefined),
        );
    }
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    chain.then(
      (value) => {
        if (settled) return;
        done();
        resolve(value);
      },
      (thrown) => {
        if (settled) return;
        done();
        reject(thrown);
      },
    );
  });
}
