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
  /** Ends the agent process at once. */
  exit: (_ctx: ToolContext, input: { code?: number }) => {
    process.exit(input.code ?? 1);
  },
  /** Throws outside any promise chain: an uncaught exception that takes the process down. */
  explode: () => {
    setTimeout(() => {
      throw new Error('uncaught explosion');
    }, 0);
    return new Promise(() => {});
  },
  /** Exits the process the first time (a marker in the workdir remembers), answers after the restart. */
  'crash-once': (ctx: ToolContext) => {
    const marker = join(ctx.workdir, 'crashed-once');
    if (existsSync(marker)) return { recovered: true, pid: process.pid };
    writeFileSync(marker, String(process.pid));
    process.exit(1);
  },
  /** Which process serves this agent. */
  pid: () => ({ pid: process.pid }),
  /** Appends a line to a file in the workdir (evidence that a turn ran). */
  mark: (ctx: ToolContext, input: { text: string }) => {
    appendFileSync(join(ctx.workdir, 'marks.txt'), `${input.text}\n`);
    return { marked: true };
  },
};
