/** The longest delay a timer takes (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Runs `onQuiet` once `quietMs` have passed without a `poke()`, or — while pokes go on — at the latest
 * `maxDelayMs` after the first poke since it last ran. One timer at a time: a poke only notes the time, and a timer
 * that fires early sets itself again for what is left. For work that should wait for a lull (writing the ends of
 * turns, pruning traces, collecting garbage) without a timer per event.
 */
export class QuietTimer {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private since = 0;
  private last = 0;

  constructor(
    private readonly options: {
      quietMs: number;
      maxDelayMs?: number;
      /** The timer does not keep the process up. */
      unref?: boolean;
      onQuiet: () => void;
    },
  ) {}

  poke(): void {
    const now = performance.now();
    this.last = now;
    if (this.timer !== undefined) return;
    this.since = now;
    this.arm(Math.min(this.options.quietMs, this.options.maxDelayMs ?? Number.POSITIVE_INFINITY));
  }

  /** Forgets the pokes so far (the work was done another way). */
  cancel(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(delayMs: number): void {
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        const now = performance.now();
        const quietLeft = this.options.quietMs - (now - this.last);
        const waitLeft = (this.options.maxDelayMs ?? Number.POSITIVE_INFINITY) - (now - this.since);
        if (quietLeft > 0 && waitLeft > 0) this.arm(Math.min(quietLeft, waitLeft));
        else this.options.onQuiet();
      },
      Math.min(delayMs, MAX_TIMER_MS),
    );
    if (this.options.unref) this.timer.unref?.();
  }
}
