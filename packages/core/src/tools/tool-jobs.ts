import type { TurnAuth } from '../agent/agent-event.ts';
import { GoondanError } from '../errors/goondan-error.ts';
import { toToolError } from '../errors/to-tool-error.ts';
import type { DeferredWork, JsonValue, PendingSubmission, ToolJobs, ToolResult } from '../types.ts';
import { toJsonSafe } from './to-json-safe.ts';

interface Job {
  handle: string;
  toolName: string;
  result: ToolResult;
  controller: AbortController;
}

/** A finished job; `auth` is the auth context of the turn that started it, so its completion's turn keeps it. */
export type JobListener = (event: { handle: string; toolName: string; result: ToolResult; auth?: TurnAuth }) => void;

const pendingBrand = 'goondan.pending';

export function isPendingSubmission(value: unknown): value is PendingSubmission {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === pendingBrand;
}

/**
 * Asynchronous tool jobs of one agent instance (spec §10.2: `pending` + `handle`, completed by event or polling).
 * Finished jobs are kept (bounded) so a late poll still answers.
 */
export class JobTable {
  private readonly jobs = new Map<string, Job>();
  private readonly listeners = new Set<JobListener>();
  private counter = 0;

  constructor(private readonly options: { keepFinished?: number; errorMessageLimit?: number } = {}) {}

  /** Listen for completions (the agent runtime appends them to the conversation). */
  onComplete(listener: JobListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The `jobs` object a handler sees, bound to the calling tool (and the auth context of its turn). */
  forTool(toolName: string, errorMessageLimit?: number, auth?: TurnAuth): ToolJobs {
    return {
      submit: (work) => this.submit(toolName, work, errorMessageLimit, auth),
      poll: (handle) => this.poll(handle),
    };
  }

  submit(toolName: string, work: DeferredWork, errorMessageLimit?: number, auth?: TurnAuth): PendingSubmission {
    this.counter += 1;
    const handle = `job_${Date.now().toString(36)}_${this.counter}`;
    const controller = new AbortController();
    const job: Job = { handle, toolName, controller, result: { status: 'pending', handle } };
    this.jobs.set(handle, job);
    const finish = (result: ToolResult) => {
      if (job.result.status !== 'pending') return;
      job.result = result;
      this.evictFinished();
      for (const listener of this.listeners) {
        try {
          listener(auth ? { handle, toolName, result, auth } : { handle, toolName, result });
        } catch {
          // Observers cannot break job completion (STYLE habit 8).
        }
      }
    };
    // Start on the next tick so the handler's `pending` answer always goes out before completion.
    queueMicrotask(() => {
      Promise.resolve()
        .then(() => work(controller.signal))
        .then(
          (output) => finish({ status: 'ok', handle, output: toJsonSafe(output) as JsonValue }),
          (thrown) => finish({ status: 'error', handle, error: toToolError(thrown, { limit: errorMessageLimit }) }),
        );
    });
    return { kind: pendingBrand, handle };
  }

  /** Jobs still running (an instance with one is not idle: stopping it would lose the result). */
  pendingCount(): number {
    let count = 0;
    for (const job of this.jobs.values()) if (job.result.status === 'pending') count += 1;
    return count;
  }

  poll(handle: string): ToolResult {
    const job = this.jobs.get(handle);
    if (!job) throw new GoondanError('E_JOB_NOT_FOUND', `No job with handle '${handle}' in this agent instance.`);
    return job.result;
  }

  /** Abort every running job (instance shutdown). */
  abortAll(reason = 'shutdown'): void {
    for (const job of this.jobs.values()) if (job.result.status === 'pending') job.controller.abort(reason);
  }

  private evictFinished(): void {
    const keep = this.options.keepFinished ?? 1000;
    let finished = 0;
    for (const job of this.jobs.values()) if (job.result.status !== 'pending') finished += 1;
    if (finished <= keep) return;
    for (const [handle, job] of this.jobs) {
      if (finished <= keep) break;
      if (job.result.status !== 'pending') {
        this.jobs.delete(handle);
        finished -= 1;
      }
    }
  }
}
