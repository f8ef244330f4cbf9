/** git__* (docs/assistant-pack-2.md#git): the git CLI, hardened for repositories of unknown origin, in the workdir. */
import type { ToolContext } from '@goondan/core';
import { gitDiff, gitLog, gitStatus } from '../../src/git/git-read.ts';
import { openGitRepository } from '../../src/git/git-repository.ts';
import { gitBranch, gitCommit } from '../../src/git/git-write.ts';

const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

export const handlers = {
  status: async (ctx: ToolContext, input: { path?: string }) => gitStatus(await openGitRepository(ctx, input.path)),
  log: async (ctx: ToolContext, input: { path?: string; count?: number }) =>
    gitLog(await openGitRepository(ctx, input.path), input.count),
  diff: async (ctx: ToolContext, input: { path?: string; staged?: boolean }) =>
    gitDiff(await openGitRepository(ctx, input.path), input.staged === true),
  commit: async (ctx: ToolContext, input: { message: string; path?: string }) =>
    gitCommit(await openGitRepository(ctx, input.path), input.message, {
      name: text(ctx.config.authorName),
      email: text(ctx.config.authorEmail),
    }),
  branch: async (
    ctx: ToolContext,
    input: { action: 'list' | 'create' | 'switch' | 'delete'; name?: string; path?: string },
  ) => gitBranch(await openGitRepository(ctx, input.path), input.action, input.name),
};
