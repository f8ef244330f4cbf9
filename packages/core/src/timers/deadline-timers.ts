/**
 * Timeouts without a timer each: tool calls, agent requests and the orchestrator's pending requests. Deadlines of
 * the same length end in the order they started, so each length keeps its deadlines in one insertion-ordered set
 * and arms one timer, for the earliest. Starting and settling is a set insert and delete. When the last deadline of
 * a length settles its timer is not cleared, only unref'd (it no longer keeps the process up); the next deadline
 * of that length refs it again, and a timer that fires with nothing due sets itself for the earliest left. So a
 * caller's requests one after another make no timer at all after the first.
 */
export interface Deadline {
  /** Stops the deadline (the work settled first). */
  cancel(): void;
}

interface Entry extends Deadline {
  at: number;
  onExpire: () => void;
}

/** Lengths kept apart; past this many, lanes with nothing waiting are dropped when a new length comes. */
const MAX_LANES = 64;
/**
 * The longest delay a timer takes (2^31 - 1 ms, about 24.8 days). A longer one (a Tool's `timeoutMs: 10000000000`)
 * would fire after 1 ms with a TimeoutOverflowWarning, again and again; a timer that fires before its deadline is
 * due sets itself for the rest.
 */
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

class DeadlineLane {
  private readonly entries = new Set<Entry>();
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly timeoutMs: number) {}

  get idle(): boolean {
    return this.entries.size === 0;
  }

  add(onExpire: () => void): Deadline {
    const entry: Entry = {
      at: performance.now() + this.timeoutMs,
      onExpire,
      cancel: () => {
        if (!this.entries.delete(entry)) return;
        // Not cleared: the next deadline of this length will want a timer again.
        if (this.entries.size === 0) this.timer?.unref();
      },
    };
    this.entries.add(entry);
    // A timer armed for an earlier deadline of this length fires before this one is due, then sets itself again.
    if (this.timer === undefined) this.arm(entry.at);
    else if (this.entries.size === 1) this.timer.ref();
    return entry;
  }

  /** Clears the timer of a lane that is being dropped. */
  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(at: number): void {
    // Ref'd while deadlines wait: like a timer per call, work that never settles keeps the process up until it
    // times out.
    this.timer = setTimeout(() => this.fire(), Math.min(MAX_TIMER_DELAY_MS, Math.max(0, at - performance.now())));
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
        // One deadline's handling cannot stop the others'.
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
    if (lanes.size >= MAX_LANES) {
      for (const [length, idle] of lanes) {
        if (!idle.idle) continue;
        idle.dispose();
        lanes.delete(length);
      }
    }
    lane = new DeadlineLane(timeoutMs);
    lanes.set(timeoutMs, lane);
  }
  return lane.add(onExpire);
}
