import { type Deadline, startDeadline } from '../timers/deadline-timers.ts';
import type { ToolResult } from '../types.ts';
import type { CallState } from './call-scope.ts';
import { isThenable } from './invoke-handler.ts';
import { errorResult } from './tool-results.ts';

/**
 * A call whose middleware chain may still be running when it returned: the bound's bookkeeping, and where the chain's
 * answer goes (`answered`, or `threw` with what it threw). The executor's record of a call is one, so bounding a
 * call costs no object of its own.
 */
export interface BoundedChain {
  /** The chain's call, set when it is bounded. */
  chain: CallState | undefined;
  /** Answered (by the chain or the bound). */
  settled: boolean;
  /** Where it is in `waiting`; -1 when not in it (answered, or armed). */
  index: number;
  deadline: Deadline | undefined;
  onAbort: (() => void) | undefined;
  /** Told the call's result once: the chain's, or the bound's. */
  answered(result: ToolResult): void;
  /** Told what the chain threw, instead of `answered`. */
  threw(thrown: unknown): void;
}

/** boundChain for a caller that wants a promise. */
class PromisedChain implements BoundedChain {
  chain: CallState | undefined = undefined;
  settled = false;
  index = -1;
  deadline: Deadline | undefined = undefined;
  onAbort: (() => void) | undefined = undefined;

  constructor(
    readonly answered: (result: ToolResult) => void,
    readonly threw: (thrown: unknown) => void,
  ) {}
}

/**
 * Chains still running when they returned, to be bounded at the next turn of the event loop. A chain that answers
 * is taken out at once (swapped with the last), so answered calls are not kept until then.
 */
let waiting: BoundedChain[] = [];
let scheduled = false;

/**
 * Bounds the toolCall middleware chain of one call, which returned `outcome` still running: the handler has its
 * own timeout, but a middleware that never settles (an await that never ends, a `next()` it never calls) would hold
 * the call, and its turn, forever; a cancelled turn could not end either. So the chain's own time (before the
 * handler starts, and after it has answered) is limited to the tool's timeoutMs, each part on its own: past it the
 * call is answered E_TOOL_MIDDLEWARE; a cancellation answers E_TOOL_ABORTED. Once answered, a late `next()` does not
 * run the handler (see `handlerMayStart`). Exactly one of `entry.answered` (the chain's result, or the bound's) and
 * `entry.threw` (what the chain threw) is called, once.
 *
 * The bound (a timer, the turn's abort listener) is set up at the next turn of the event loop, and only for chains
 * that have not answered by then: async layers over a handler that answers at once settle within the microtasks of
 * their call, and arming a timer and a listener for each of them cost two pass-through layers ~0.6 µs a call
 * (issue 15). The executor answers through the promise it returns anyway and its record of the call is the entry,
 * so a bounded call pays no promise or object of ours either.
 */
export function boundChain(outcome: Promise<ToolResult>, state: CallState, entry: BoundedChain): void {
  entry.chain = state;
  entry.index = waiting.length;
  waiting.push(entry);
  if (!scheduled) {
    scheduled = true;
    setImmediate(armWaiting);
  }
  try {
    outcome.then(
      (result) => finish(entry, result),
      // Handed on for the executor, which names a middleware's throw (E_TOOL_MIDDLEWARE or its own code).
      (thrown) => {
        if (end(entry)) entry.threw(thrown);
      },
    );
  } catch (thrown) {
    // A thenable of a layer's own (not a promise) whose then() throws: that is the chain's answer.
    if (end(entry)) entry.threw(thrown);
  }
}

/** boundChain in a promise of its own: runs the chain, and bounds it when it is still running once it returned. */
export function runBoundedChain(
  run: (state: CallState) => Promise<ToolResult> | ToolResult,
  state: CallState,
): Promise<ToolResult> | ToolResult {
  let outcome: Promise<ToolResult> | ToolResult;
  try {
    outcome = run(state);
  } catch (thrown) {
    return Promise.reject(thrown);
  }
  // A chain that has answered (without a promise, or with one settled already) is given up at once: a next() a
  // layer calls later must not start the tool. A thenable that is not a promise cannot be read: it is bounded.
  if (!isThenable(outcome)) {
    state.givenUp = true;
    return outcome;
  }
  const running = outcome as Promise<ToolResult>;
  if (running instanceof Promise && Bun.peek.status(running) !== 'pending') {
    state.givenUp = true;
    return running;
  }
  return new Promise((resolve, reject) => boundChain(running, state, new PromisedChain(resolve, reject)));
}

/**
 * False once the chain was given up, or has answered: a middleware's late next() must not start the tool after its
 * call ended.
 */
export function handlerMayStart(state: CallState): boolean {
  if (state.givenUp === true) return false;
  const answer = state.answer;
  return answer === undefined || Bun.peek.status(answer) === 'pending';
}

function end(entry: BoundedChain): boolean {
  if (entry.settled) return false;
  entry.settled = true;
  const state = entry.chain!;
  state.givenUp = true;
  if (entry.index >= 0) {
    const last = waiting.pop()!;
    if (last !== entry) {
      waiting[entry.index] = last;
      last.index = entry.index;
    }
    entry.index = -1;
  }
  entry.deadline?.cancel();
  if (entry.onAbort) state.scope.signal?.removeEventListener('abort', entry.onAbort);
  state.onHandler = undefined;
  return true;
}

function finish(entry: BoundedChain, result: ToolResult): void {
  if (end(entry)) entry.answered(result);
}

/** Bounds the chains still running: the turn's cancellation, and the deadline of their own time. */
function armWaiting(): void {
  scheduled = false;
  const entries = waiting;
  waiting = [];
  for (const entry of entries) {
    entry.index = -1;
    if (entry.settled) continue;
    try {
      const state = entry.chain!;
      const { call, scope } = state;
      const arm = () => {
        entry.deadline?.cancel();
        entry.deadline = startDeadline(state.tool.timeoutMs, () =>
          finish(
            entry,
            errorResult(
              'E_TOOL_MIDDLEWARE',
              `Tool '${call.name}': its toolCall middleware did not answer within ${state.tool.timeoutMs} ms (the tool's timeoutMs) of its own time, before or after the handler (an await that never settles, or a next() never called?); the call was given up.`,
            ),
          ),
        );
      };
      // From now on the handler tells when it starts and has answered; one already running tells through its answer.
      state.onHandler = (running) => {
        if (running) entry.deadline?.cancel();
        else if (!entry.settled) arm();
      };
      const handler = state.handler;
      if (handler && Bun.peek.status(handler) === 'pending') {
        const afterHandler = () => {
          if (!entry.settled) arm();
        };
        handler.then(afterHandler, afterHandler);
      } else {
        arm();
      }
      const signal = scope.signal;
      const onAbort = () =>
        finish(
          entry,
          errorResult('E_TOOL_ABORTED', `Tool '${call.name}' was cancelled while its toolCall middleware was running.`),
        );
      if (signal?.aborted) onAbort();
      else if (signal) {
        signal.addEventListener('abort', onAbort, { once: true });
        entry.onAbort = onAbort;
      }
    } catch (thrown) {
      // One call's bound that cannot be set up (a signal whose addEventListener throws) answers that call, and
      // the others are still bounded.
      if (end(entry)) entry.threw(thrown);
    }
  }
}
