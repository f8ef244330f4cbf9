import { readdirSync } from 'node:fs';
import type { GuardrailPlan, ToolContext } from '@goondan/core';
import { GoondanError, withGuardrail } from '@goondan/core';
import { confinementCheckpoint } from '../../src/confinement-test-hook.ts';
import { release, type Workdir, withWorkdir } from '../../src/directory-handle.ts';
import { locateInsideWorkdir, openLocatedDirectory, withLocation } from '../../src/locate-inside-workdir.ts';
import { applyDelete, type Doomed } from './apply-delete.ts';
import { checkGlob, walkTree } from './walk-tree.ts';

/** Paths one call may name. */
export const MAX_DELETE_PATHS = 1_000;
/** Entries one call may delete (a recursive directory counts every file under it). */
export const MAX_DELETE_ENTRIES = 10_000;

interface DeleteInput {
  paths?: string[];
  glob?: string;
  recursive?: boolean;
}

class Plan {
  readonly entries: Doomed[] = [];
  private readonly seen = new Set<string>();

  add(entry: Doomed): void {
    const key = entry.components.join('/');
    if (this.seen.has(key)) return;
    this.seen.add(key);
    if (this.entries.length >= MAX_DELETE_ENTRIES) {
      throw new GoondanError('E_TOOL', `More than ${MAX_DELETE_ENTRIES} entries to delete; delete in smaller parts.`);
    }
    this.entries.push(entry);
  }
}

/** Adds one named path: refused if it leads outside (links included), then taken as the entry itself. */
async function addPath(options: {
  ctx: ToolContext;
  workdir: Workdir;
  plan: Plan;
  userPath: string;
  recursive: boolean;
}): Promise<void> {
  const { ctx, workdir, plan, userPath, recursive } = options;
  // Followed to the end first, so a link that leads outside is refused like in every other export.
  const checked = locateInsideWorkdir(workdir, { path: userPath });
  release(checked.parent);
  if (checked.relativePath === '.') throw new GoondanError('E_TOOL', 'The workdir itself cannot be deleted.');
  if (checked.stats === undefined)
    throw new GoondanError('E_FILE_NOT_FOUND', `Nothing at '${checked.relativePath}'; nothing was deleted.`);
  // The entry as named: a symlink inside the workdir is deleted itself, never the file it points to.
  await withLocation(workdir, { path: userPath, followLast: false }, async (target) => {
    confinementCheckpoint('delete-plan');
    const stats = target.stats;
    if (stats === undefined || target.name === null)
      throw new GoondanError('E_FILE_NOT_FOUND', `Nothing at '${target.relativePath}'; nothing was deleted.`);
    const components = [...target.parent.components, target.name];
    if (stats.isSymbolicLink() || !stats.isDirectory()) {
      const type = stats.isSymbolicLink() ? 'symlink' : stats.isFile() ? 'file' : 'other';
      plan.add({
        path: target.relativePath,
        components,
        type,
        size: type === 'file' ? stats.size : null,
        counted: true,
      });
      return;
    }
    const directory = openLocatedDirectory(workdir, target);
    try {
      const contents = readdirSync(directory.path);
      if (contents.length > 0 && !recursive) {
        throw new GoondanError(
          'E_TOOL',
          `'${target.relativePath}' is a directory with ${contents.length} entries; pass recursive: true to delete it with everything under it. Nothing was deleted.`,
        );
      }
      const directories: Doomed[] = [];
      let files = 0;
      for await (const entry of walkTree({
        workdir,
        root: directory,
        signal: ctx.signal,
        label: target.relativePath,
      })) {
        const path = `${target.relativePath}/${entry.name}`;
        const isDirectory = entry.type === 'dir';
        const doomed = { path, components: entry.components, type: entry.type, size: null, counted: !isDirectory };
        if (isDirectory) directories.push(doomed);
        else {
          files += 1;
          plan.add({ ...doomed, size: entry.type === 'file' ? entry.size : null });
        }
      }
      // Directories go after their contents, deepest first; the named one counts itself when nothing else does.
      for (const doomed of directories.reverse()) plan.add(doomed);
      plan.add({ path: target.relativePath, components, type: 'dir', size: null, counted: files === 0 });
    } finally {
      release(directory);
    }
  });
}

/** Adds every file and link matching the glob (relative to the workdir); directories are left in place. */
async function addGlob(options: { ctx: ToolContext; workdir: Workdir; plan: Plan; glob: string }): Promise<void> {
  const { ctx, workdir, plan, glob } = options;
  const { pattern, base } = checkGlob(glob);
  await withLocation(workdir, { path: base }, async (root) => {
    if (root.stats === undefined || !root.stats.isDirectory()) return;
    const matcher = new Bun.Glob(pattern);
    const prefix = root.relativePath === '.' ? '' : `${root.relativePath}/`;
    const directory = openLocatedDirectory(workdir, root);
    try {
      for await (const entry of walkTree({ workdir, root: directory, signal: ctx.signal, label: glob })) {
        const path = prefix + entry.name;
        if (entry.type === 'dir' || !matcher.match(path)) continue;
        plan.add({
          path,
          components: entry.components,
          type: entry.type,
          size: entry.type === 'file' ? entry.size : null,
          counted: true,
        });
      }
    } finally {
      release(directory);
    }
  });
}

function plural(count: number, one: string, many: string): string {
  return count === 0 ? '' : `${count} ${count === 1 ? one : many}`;
}

async function planDelete(ctx: ToolContext, input: DeleteInput): Promise<GuardrailPlan> {
  const { paths, glob } = input;
  if ((paths === undefined) === (glob === undefined))
    throw new GoondanError('E_TOOL_INVALID_ARGS', 'Give either paths (a list) or glob, not both and not neither.');
  if (paths !== undefined && (!Array.isArray(paths) || paths.length === 0 || paths.length > MAX_DELETE_PATHS))
    throw new GoondanError('E_TOOL_INVALID_ARGS', `paths must be a list of 1 to ${MAX_DELETE_PATHS} paths.`);
  const plan = new Plan();
  await withWorkdir(ctx.workdir, async (workdir) => {
    const recursive = input.recursive === true;
    if (paths === undefined) return addGlob({ ctx, workdir, plan, glob: glob! });
    for (const userPath of paths) await addPath({ ctx, workdir, plan, userPath, recursive });
  });
  const counted = plan.entries.filter((entry) => entry.counted);
  const tally = (type: (entry: Doomed) => boolean) => counted.filter(type).length;
  const parts = [
    plural(
      tally((entry) => entry.type === 'file' || entry.type === 'other'),
      'file',
      'files',
    ),
    plural(
      tally((entry) => entry.type === 'symlink'),
      'link',
      'links',
    ),
    plural(
      tally((entry) => entry.type === 'dir'),
      'empty directory',
      'empty directories',
    ),
    plural(plan.entries.length - counted.length, 'directory emptied on the way', 'directories emptied on the way'),
  ].filter((part) => part !== '');
  return {
    changes: counted.map((entry) => ({ path: entry.path, type: entry.type, size: entry.size })),
    summary: parts.length === 0 ? 'nothing matched' : `delete ${parts.join(', ')}`,
    apply: () => withWorkdir(ctx.workdir, (workdir) => applyDelete(workdir, plan.entries)),
  };
}

/** `file-system__delete`: deletes files, links and directories inside the workdir, guarded (docs/guardrails.md). */
export const remove = withGuardrail(planDelete);
