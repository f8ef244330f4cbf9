/**
 * coding__run_task (restricted) and coding__review (sensitive): a configured coding CLI run as a pending job in a
 * git worktree, and a model's review of a diff (docs/assistant-devices.md#coding-agent).
 */
import type { ToolContext } from '@goondan/core';
import { reviewDiff } from '../../src/coding/review-diff.ts';
import { startCodingTask } from '../../src/coding/run-coding-task.ts';

export const handlers = {
  run_task: (ctx: ToolContext, input: { task: string; working_directory?: string }) => startCodingTask(ctx, input),
  review: (ctx: ToolContext, input: { file_path?: string; diff?: string; branch?: string }) => reviewDiff(ctx, input),
};
