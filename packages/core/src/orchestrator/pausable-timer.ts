/**
 * A one-shot timer that can be paused and resumed, keeping the time left: a request's timeout does not run while
 * the work it waits for is held by a person (an approval in the callee or further down the chain).
 */
export class PausableTimer {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private remainingMs: number;
  private startedAt = 0;
  private done = false;

  constructor(
    private readonly fire: () => void,
    ms: number,
  ) {
    this.remainingMs = ms;
    this.start();
  }

  get paused(): boolean {
    return this.timer === undefined && !this.done;
  }

  pause(): void {
    if (this.timer === undefined || this.done) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.remainingMs = Math.max(0, this.remainingMs - (Date.now() - this.startedAt));
  }

  resume(): void {
    if (this.timer !== undefined || this.done) return;
    this.start();
  }

  clear(): void {
    this.done = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private start(): void {
    this.startedAt = Date.now();
    this.timer = setTimeout(() => {
      this.done = true;
      this.timer = undefined;
      this.fire();
    }, this.remainingMs);
  }
}
