import { resolve, sep } from 'node:path';
import type { ToolContext } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';

const stateSegment = `${sep}.goondan${sep}workspaces${sep}`;

/**
 * The directory of the bundle the calling agent runs (the one holding goondan.yaml and `.goondan/`): the Tool's
 * config.bundleDir when set, else the directory above `.goondan/workspaces/` in the agent's workdir.
 */
export function assistantBundleRoot(ctx: Pick<ToolContext, 'workdir' | 'config'>): string {
  const configured = ctx.config.bundleDir;
  if (typeof configured === 'string' && configured !== '') return resolve(ctx.workdir, configured);
  const at = ctx.workdir.lastIndexOf(stateSegment);
  if (at < 0) {
    throw new GoondanError('E_TOOL', `Cannot tell which bundle the workdir ${ctx.workdir} belongs to.`, {
      suggestion: "Set the Tool's config.bundleDir to the bundle directory (absolute, or relative to the workdir).",
    });
  }
  return ctx.workdir.slice(0, at);
}
