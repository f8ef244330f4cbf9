import { type Deadline, startDeadline } from '../timers/deadline-timers.ts';
import type { ToolResult } from '../types.ts';
import type { CallState } from './call-scope.ts';
import { errorResult } from './tool-results.ts';

/**
 * Runs the toolCall middleware chain of one call, bounded: the handler has its own timeout, but a middleware that
 * never settles (an await that never ends, a `next()` it never calls) would hold the call, and its turn, forever;
 * a cancelled turn could not end either. So the chain's own time (before the handler starts, and after it has
 * answered) is limited to the tool's timeoutMs, each part on its own: past it the call is answered
 * E_TOOL_MIDDLEWARE; a cancellation answers E_TOOL_ABORTED at once. Once answered, a late `next()` does not run
 * the handler (see `handlerMayStart`).
 */
export function runBoundedChain(
  run: (state: CallState) => Promise<ToolResult> | ToolResult,
  state: CallState,
): Promise<ToolResult> {
  const { tool, call, scope } = state;
  const signal = scope.signal;
  return new Promise<ToolResult>((resolve, reject) => {
    let settled = false;
    let deadline: Deadline | undefined;
    const end = () => {
      if (settled) return false;
      settled = true;
      state.givenUp = true;
      deadline?.cancel();
      signal?.removeEventListener('abort', onAbort);
      state.onHandler = undefined;
      return true;
    };
    const finish = (result: ToolResult) => {
      if (end()) resolve(result);
    };
    const onAbort = () =>
      finish(
        errorResult('E_TOOL_ABORTED', `Tool '${call.name}' was cancelled while its toolCall middleware was running.`),
      );
    const arm = () => {
      deadline?.cancel();
      deadline = startDeadline(tool.timeoutMs, () =>
        finish(
          errorResult(
            'E_TOOL_MIDDLEWARE',
            `Tool '${call.name}': its toolCall middleware did not answer within ${tool.timeoutMs} ms (the tool's timeoutMs) of its own time, before or after the handler (an await that never settles, or a next() never called?); the call was given up.`,
          ),
        ),
      );
    };
    state.onHandler = (running) => {
      if (running) deadline?.cancel();
      else if (!settled) arm();
    };
    if (signal && !signal.aborted) signal.addEventListener('abort', onAbort, { once: true });
    arm();
    let outcome: Promise<ToolResult> | ToolResult;
    try {
      outcome = run(state);
    } catch (thrown) {
      outcome = Promise.reject(thrown);
    }
    Promise.resolve(outcome).then(
      (result) => finish(result),
      (thrown) => {
        // Rethrown for the executor, which names a middleware's throw (E_TOOL_MIDDLEWARE or its own code).
        if (end()) reject(thrown);
      },
    );
  });
}

/** False once the chain was given up: a middleware's late next() must not start the tool after its call ended. */
export function handlerMayStart(state: CallState): boolean {
  return state.givenUp !== true;
}
