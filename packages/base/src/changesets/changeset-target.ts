import { resolve, sep } from 'node:path';
import type { ToolContext } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';
import { baseBundleDir } from '../base-bundle-dir.ts';

const stateSegment = `${sep}.goondan${sep}workspaces${sep}`;

/**
 * The bundle a tool's changesets change: config.bundleDir, else the bundle the agent runs (ToolContext.bundle),
 * else the directory holding the `.goondan/` of its workdir.
 */
export function changesetBundleDir(ctx: ToolContext): string {
  const configured = ctx.config.bundleDir;
  if (typeof configured === 'string' && configured !== '') return resolve(ctx.workdir, configured);
  if (ctx.bundle) return ctx.bundle.rootDir;
  const at = ctx.workdir.lastIndexOf(stateSegment);
  if (at < 0) {
    throw new GoondanError('E_CHANGESET_FAILED', `Cannot tell which bundle workdir ${ctx.workdir} belongs to.`, {
      suggestion: "Set the Tool's config.bundleDir to the bundle directory (absolute, or relative to the workdir).",
    });
  }
  return ctx.workdir.slice(0, at);
}

/**
 * The library bundles a changed bundle is validated with: those the running bundle was loaded with (every library
 * the CLI loads, e.g. @goondan/base and @goondan/assistant), else @goondan/base alone.
 */
export function changesetLibraries(ctx: ToolContext): string[] {
  return ctx.bundle ? [...ctx.bundle.libraries] : [baseBundleDir];
}
