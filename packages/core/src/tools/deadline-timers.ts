/**
 * Timeouts of running tool calls without a timer per call: calls with the same timeout end in the order they
 * started, so each timeout length keeps its calls in one insertion-ordered set and arms one timer, for the
 * earliest. Starting and settling a call is a set insert and delete; a timer is set again only when it fires.
 */
export interface Deadline {
  /** Stops the deadline (the call settled first). */
  cancel(): void;
}

interface Entry extends Deadline {
  at: number;
  onExpire: () => void;
}

class DeadlineLane {
  private readonly entries = new Set<Entry>();
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly timeoutMs: number) {}

  add(onExpire: () => void): Deadline {
    const entry: Entry = {
      at: performance.now() + this.timeoutMs,
      onExpire,
      cancel: () => {
        this.entries.delete(entry);
        if (this.entries.size === 0) this.disarm();
      },
    };
    this.entries.add(entry);
    if (this.timer === undefined) this.arm(entry.at);
    return entry;
  }

  private arm(at: number): void {
    // Not unref'd: like a timer per call, a handler that never settles keeps the process up until it times out.
    this.timer = setTimeout(() => this.fire(), Math.max(0, at - performance.now()));
  }

  private disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private fire(): void {
    this.timer = undefined;
    const now = performance.now();
    for (const entry of this.entries) {
      // Timers may fire a little early; within a millisecond counts as due.
      if (entry.at > now + 1) break;
      this.entries.delete(entry);
      try {
        entry.onExpire();
      } catch {
        // One call's timeout handling cannot stop the others'.
      }
    }
    const [first] = this.entries;
    if (first !== undefined && this.timer === undefined) this.arm(first.at);
  }
}

const lanes = new Map<number, DeadlineLane>();

/** Calls `onExpire` once `timeoutMs` have passed, unless the returned deadline is cancelled first. */
export function startDeadline(timeoutMs: number, onExpire: () => void): Deadline {
  let lane = lanes.get(timeoutMs);
  if (lane === undefined) {
    lane = new DeadlineLane(timeoutMs);
    lanes.set(timeoutMs, lane);
  }
  return lane.add(onExpire);
}
