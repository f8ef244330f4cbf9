import { type Deadline, startDeadline } from '../timers/deadline-timers.ts';
import type { ToolResult } from '../types.ts';
import type { CallState } from './call-scope.ts';
import { isThenable } from './invoke-handler.ts';
import { errorResult } from './tool-results.ts';

/** A call whose middleware chain had not answered when it returned. */
interface Bounded {
  state: CallState;
  resolve: (result: ToolResult) => void;
  reject: (thrown: unknown) => void;
  settled: boolean;
  deadline?: Deadline;
  onAbort?: () => void;
}

/** Chains still running when they returned, to be bounded at the next turn of the event loop. */
let waiting: Bounded[] = [];
let scheduled = false;

/**
 * Runs the toolCall middleware chain of one call, bounded: the handler has its own timeout, but a middleware that
 * never settles (an await that never ends, a `next()` it never calls) would hold the call, and its turn, forever;
 * a cancelled turn could not end either. So the chain's own time (before the handler starts, and after it has
 * answered) is limited to the tool's timeoutMs, each part on its own: past it the call is answered
 * E_TOOL_MIDDLEWARE; a cancellation answers E_TOOL_ABORTED. Once answered, a late `next()` does not run the
 * handler (see `handlerMayStart`).
 *
 * The bound (a timer, the turn's abort listener) is set up at the next turn of the event loop, and only for chains
 * that have not answered by then: async layers over a handler that answers at once settle within the microtasks of
 * their call, and arming a timer and a listener for each of them cost two pass-through layers ~0.6 µs a call
 * (issue 15). A chain answered at once pays nothing; one still running pays a promise of ours.
 */
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
  if (!isThenable(outcome)) return outcome;
  const answer = outcome as Promise<ToolResult>;
  if (Bun.peek.status(answer) !== 'pending') return answer;
  const { promise, resolve, reject } = Promise.withResolvers<ToolResult>();
  const entry: Bounded = { state, resolve, reject, settled: false };
  answer.then(
    (result) => finish(entry, result),
    // Rethrown for the executor, which names a middleware's throw (E_TOOL_MIDDLEWARE or its own code).
    (thrown) => {
      if (end(entry)) reject(thrown);
    },
  );
  waiting.push(entry);
  if (!scheduled) {
    scheduled = true;
    setImmediate(armWaiting);
  }
  return promise;
}

/** False once the chain was given up: a middleware's late next() must not start the tool after its call ended. */
export function handlerMayStart(state: CallState): boolean {
  return state.givenUp !== true;
}

function end(entry: Bounded): boolean {
  if (entry.settled) return false;
  entry.settled = true;
  entry.state.givenUp = true;
  entry.deadline?.cancel();
  if (entry.onAbort) entry.state.scope.signal?.removeEventListener('abort', entry.onAbort);
  entry.state.onHandler = undefined;
  return true;
}

function finish(entry: Bounded, result: ToolResult): void {
  if (end(entry)) entry.resolve(result);
}

/** Bounds the chains still running: the turn's cancellation, and the deadline of their own time. */
function armWaiting(): void {
  scheduled = false;
  const entries = waiting;
  waiting = [];
  for (const entry of entries) {
    if (entry.settled) continue;
    const { state } = entry;
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
      entry.onAbort = onAbort;
      signal.addEventListener('abort', onAbort, { once: true });
    }
  }
}
