/** When and how often a crashed agent process is restarted (DESIGN.md §5). */
export interface RestartPolicy {
  /** Delay before the first restart after a crash. */
  initialMs: number;
  /** The delay doubles (factor) per crash in a row, up to this. */
  maxMs: number;
  factor: number;
  /** A process that stayed up this long after ready starts again from initialMs on its next crash. */
  stableAfterMs: number;
  /** This many crashes within crashLoopWindowMs show as `crash-loop` (restarts go on, with backoff). */
  crashLoopCrashes: number;
  crashLoopWindowMs: number;
}

export const defaultRestartPolicy: RestartPolicy = {
  initialMs: 200,
  maxMs: 30_000,
  factor: 2,
  stableAfterMs: 10_000,
  crashLoopCrashes: 3,
  crashLoopWindowMs: 60_000,
};

/** Delay before restart number `attempt` (1 = first restart after a crash): initial · factor^(attempt-1), capped. */
export function restartDelay(attempt: number, policy: RestartPolicy): number {
  const exponent = Math.max(0, attempt - 1);
  return Math.min(policy.maxMs, Math.round(policy.initialMs * policy.factor ** exponent));
}
