import { type Deadline, startDeadline } from '../timers/deadline-timers.ts';

/**
 * A one-shot timer that can be paused and resumed, keeping the time left: a request's timeout does not run while
 * the work it waits for is held by a person (an approval in the callee or further down the chain). Its first run
 * shares a timer with the others of its length (deadline-timers.ts: a request costs no timer of its own); after a
 * pause, what is left is an odd length of its own, so a resumed timer is a plain one.
 */
export class PausableTimer {
  private deadline: Deadline | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private remainingMs: number;
  private startedAt: number;
  private done = false;

  constructor(
    private readonly fire: () => void,
    ms: number,
  ) {
    this.remainingMs = ms;
    this.startedAt = Date.now();
    this.deadline = startDeadline(ms, () => this.expire());
  }

  get paused(): boolean {
    return this.deadline === undefined && this.timer === undefined && !this.done;
  }

  pause(): void {
    if (this.done || this.paused) return;
    this.stop();
    this.remainingMs = Math.max(0, this.remainingMs - (Date.now() - this.startedAt));
  }

  resume(): void {
    if (this.done || !this.paused) return;
    this.startedAt = Date.now();
    this.timer = setTimeout(() => this.expire(), this.remainingMs);
  }

  clear(): void {
    this.done = true;
    this.stop();
  }

  private stop(): void {
    this.deadline?.cancel();
    this.deadline = undefined;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private expire(): void {
    this.done = true;
    this.deadline = undefined;
    this.timer = undefined;
    this.fire();
  }
}
