import type { ToolContext } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';
import { confinementCheckpoint } from '../../src/confinement-test-hook.ts';
import { release, type Workdir } from '../../src/directory-handle.ts';
import { openLocatedDirectory, withLocation } from '../../src/locate-inside-workdir.ts';
import { checkGlob, walkTree } from './walk-tree.ts';

/** Text files read by one call; more is refused so a call stays bounded in time and memory. */
export const MAX_REPLACE_FILES = 10_000;

/** A file searched no further, and why. */
export interface Skipped {
  file: string;
  reason: string;
}

interface Candidate {
  file: string;
  components: readonly string[];
}

/** The files a call searches: workdir-relative names as the user sees them, and the names to open them by. */
export async function candidates(options: {
  ctx: ToolContext;
  workdir: Workdir;
  input: { path: string; glob?: string };
}) {
  const { ctx, workdir, input } = options;
  return withLocation(workdir, { path: input.path }, async (target) => {
    if (target.stats === undefined) throw new GoondanError('E_FILE_NOT_FOUND', `Nothing at '${target.relativePath}'.`);
    confinementCheckpoint('replace-plan');
    const prefix = target.relativePath === '.' ? '' : `${target.relativePath}/`;
    if (!target.stats.isDirectory()) {
      if (input.glob !== undefined)
        throw new GoondanError('E_TOOL_INVALID_ARGS', 'glob selects files in a directory; give a directory as path.');
      const components = [...target.parent.components, target.name!];
      return { files: [{ file: target.relativePath, components }], skipped: [] as Skipped[], single: true };
    }
    const glob = input.glob === undefined ? undefined : checkGlob(input.glob);
    const matcher = glob ? new Bun.Glob(glob.pattern) : undefined;
    const base = glob && glob.base !== '.' ? glob.base : '';
    return withLocation(workdir, { path: prefix + (base || '.') }, async (root) => {
      if (root.stats === undefined) return { files: [], skipped: [], single: false };
      const files: Candidate[] = [];
      const skipped: Skipped[] = [];
      let directory: ReturnType<typeof openLocatedDirectory>;
      try {
        directory = openLocatedDirectory(workdir, root);
      } catch {
        // A file where the glob's directory should be, or a directory swapped since it was found: nothing to search.
        return { files, skipped, single: false };
      }
      try {
        const rootPrefix = base === '' ? '' : `${base}/`;
        for await (const entry of walkTree({ workdir, root: directory, signal: ctx.signal, label: input.path })) {
          const name = rootPrefix + entry.name;
          if (entry.type === 'dir' || (matcher && !matcher.match(name))) continue;
          if (entry.type !== 'file') {
            skipped.push({
              file: prefix + name,
              reason: entry.type === 'symlink' ? 'symbolic link, not followed' : 'special file',
            });
            continue;
          }
          if (files.length >= MAX_REPLACE_FILES) {
            throw new GoondanError(
              'E_TOOL',
              `More than ${MAX_REPLACE_FILES} files to search under '${input.path}'; narrow path or glob.`,
            );
          }
          files.push({ file: prefix + name, components: entry.components });
        }
      } finally {
        release(directory);
      }
      return { files, skipped, single: false };
    });
  });
}
