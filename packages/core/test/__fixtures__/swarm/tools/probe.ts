// Tools that misbehave on purpose, for the orchestrator's integration tests.
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolContext } from '@goondan/core';

export const handlers = {
  /** Waits `ms` unless `ignoreAbort` is false and the call is cancelled (a hung callee when ms is large). */
  sleep: (ctx: ToolContext, input: { ms: number }) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve({ slept: input.ms }), input.ms);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(new Error('sleep was cancelled'));
      });
    }),
  /** Ends the agent process at once: killed, since a tool's own process.exit only fails its call. */
  exit: () => {
    process.kill(process.pid, 'SIGKILL');
  },
  /** Throws outside any promise chain: the guard fails the call with E_TOOL and the process lives on. */
  explode: () => {
    setTimeout(() => {
      throw new Error('uncaught explosion');
    }, 0);
    return new Promise(() => {});
  },
  /** Kills its own process the first time (a marker in the workdir remembers), answers after the restart. */
  'crash-once': (ctx: ToolContext) => {
    const marker = join(ctx.workdir, 'crashed-once');
    if (existsSync(marker)) return { recovered: true, pid: process.pid };
    writeFileSync(marker, String(process.pid));
    process.kill(process.pid, 'SIGKILL');
  },
  /** Answers pending at once; the job sleeps `ms` in the background (a tool job the turn does not wait for). */
  job: (ctx: ToolContext, input: { ms: number }) =>
    ctx.jobs.submit(async () => {
      await Bun.sleep(input.ms);
      return { slept: input.ms };
    }),
  /** Sends the worker `data` nested `depth` levels deep (more than JSON.stringify can take at 50,000). */
  'deep-send': async (ctx: ToolContext, input: { depth: number }) => {
    let data: unknown = [];
    for (let level = 1; level < input.depth; level++) data = [data];
    return ctx.agents!.send({ target: 'worker', input: 'deep', data: data as never });
  },
  /** Which process serves this agent. */
  pid: () => ({ pid: process.pid }),
  /** Appends a line to a file in the workdir (evidence that a turn ran). */
  mark: (ctx: ToolContext, input: { text: string }) => {
    appendFileSync(join(ctx.workdir, 'marks.txt'), `${input.text}\n`);
    return { marked: true };
  },
};
