import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * A tool handler while it runs, so an error that escapes it (thrown from its own timer, or a promise it started and
 * did not await) can still fail the call instead of the process. See guardProcessErrors.
 */
export class RunningToolCall {
  private escape: ((thrown: unknown) => void) | undefined;
  private done = false;
  /** In the set of unsettled calls (trackUnsettled): only a handler that answered with a promise is. */
  tracked = false;

  constructor(
    readonly toolName: string,
    readonly toolCallId: string,
  ) {}

  get finished(): boolean {
    return this.done;
  }

  /** Where the executor wants an escaped error while it waits for the handler. */
  onEscape(listener: (thrown: unknown) => void): void {
    this.escape = listener;
  }

  /** Fails the call with an escaped error if it is still running; false once it has finished. */
  fail(thrown: unknown): boolean {
    if (this.done || this.escape === undefined) return false;
    this.escape(thrown);
    return true;
  }

  finish(): void {
    this.done = true;
    this.escape = undefined;
    if (this.tracked) running.delete(this);
  }
}

const storage = new AsyncLocalStorage<RunningToolCall>();
const running = new Set<RunningToolCall>();

/** Runs the handler inside the call's async context; timers and promises it starts carry that context along. */
export function runToolHandler<T>(call: RunningToolCall, handler: () => T): T {
  return storage.run(call, handler);
}

/**
 * Counts the call as running until it finishes: the handler returned a promise. A handler that returned a value is
 * done before anything it left behind can be reported, so it never needs the only-running-call fallback below.
 */
export function trackUnsettled(call: RunningToolCall): void {
  call.tracked = true;
  running.add(call);
}

/** The tool call whose handler (or a timer or promise it started) is running right now, if any. */
export function currentToolCall(): RunningToolCall | undefined {
  return storage.getStore();
}

/**
 * The call an escaped error belongs to: the one whose async context it was thrown in (Bun carries it into timer
 * callbacks), else, when exactly one call is running in this process, that one (Bun reports unhandled rejections
 * outside the context that created the promise). Undefined when it cannot be told.
 */
export function toolCallOfEscapedError(): RunningToolCall | undefined {
  const own = storage.getStore();
  if (own) return own;
  if (running.size !== 1) return undefined;
  const [only] = running;
  return only;
}
