import { GoondanError } from '../errors/goondan-error.ts';

/** How long a model call may go without a sign of life before it is given up, unless `params.idleTimeoutMs` says. */
export const DEFAULT_MODEL_IDLE_TIMEOUT_MS = 600_000;

/** A delay past 2^31 - 1 ms fires at once: a larger idleTimeoutMs waits this long instead. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface ModelCallWatchdog {
  /** Aborts when the caller's signal does, or when the call failed here: give it to the call. */
  signal: AbortSignal;
  /** Aborts only when the call failed here (went quiet, or `fail`); its reason is the error. */
  failed: AbortSignal;
  /** A sign of life (an attempt starting, a part of the answer): the quiet time starts again. Cheap per part. */
  alive(): void;
  /** Stops the clock until the next `alive` (a retry's wait is not the server's silence). */
  pause(): void;
  /** The call is over: the clock stops and the caller's signal is let go. */
  close(): void;
  /** Gives the call up with this error (aborting the request). */
  fail(error: Error): void;
}

function seconds(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * Ends a model call that goes quiet: no answer headers, or no part of the answer, for `idleMs` (0: never). A server
 * that accepts the request and then sends nothing, or one byte a minute, would otherwise hold the turn — and every
 * turn queued behind it, under `gdn serve` — for ever. The error is E_MODEL_CALL_FAILED, not retried.
 */
export function modelCallWatchdog(idleMs: number, outer: AbortSignal): ModelCallWatchdog {
  // One controller for the call, which the caller's signal aborts through one listener (AbortSignal.any costs
  // microseconds per call and keeps the combined signal registered with the turn's until the turn ends).
  const call = new AbortController();
  const failure = new AbortController();
  const onOuterAbort = () => call.abort(outer.reason);
  if (outer.aborted) call.abort(outer.reason);
  else outer.addEventListener('abort', onOuterAbort, { once: true });
  const limit = Math.min(idleMs, MAX_TIMER_MS);
  let last = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const fail = (error: Error) => {
    pause();
    if (!failure.signal.aborted) failure.abort(error);
    if (!call.signal.aborted) call.abort(error);
  };
  const check = () => {
    timer = undefined;
    const quiet = Date.now() - last;
    if (quiet < limit) timer = setTimeout(check, limit - quiet);
    else
      fail(
        new GoondanError(
          'E_MODEL_CALL_FAILED',
          `The model server sent nothing for ${seconds(limit)} (no answer, or no more of it), so the call was given up (a server that is stuck or overloaded; spec.params.idleTimeoutMs of the Model sets how long to wait, 0 for ever).`,
        ),
      );
  };
  function pause(): void {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  }
  return {
    signal: call.signal,
    failed: failure.signal,
    alive() {
      last = Date.now();
      if (timer === undefined && limit > 0 && !failure.signal.aborted) timer = setTimeout(check, limit);
    },
    pause,
    fail,
    close() {
      pause();
      outer.removeEventListener('abort', onOuterAbort);
    },
  };
}
