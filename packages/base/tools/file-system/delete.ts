import { lstat, readdir, realpath, rmdir, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { GuardrailPlan, JsonObject, ToolContext } from '@goondan/core';
import { GoondanError, withGuardrail } from '@goondan/core';
import { resolveInsideWorkdir } from '../../src/resolve-inside-workdir.ts';
import { checkGlob, type TreeEntryType, walkTree } from './walk-tree.ts';

/** Paths one call may name. */
export const MAX_DELETE_PATHS = 1_000;
/** Entries one call may delete (a recursive directory counts every file under it). */
export const MAX_DELETE_ENTRIES = 10_000;
const PATHS_SHOWN = 200;

interface DeleteInput {
  paths?: string[];
  glob?: string;
  recursive?: boolean;
}

/** One entry to remove: `absolutePath` is the entry itself (a link, never its target). */
interface Doomed {
  path: string;
  absolutePath: string;
  type: TreeEntryType;
  size: number | null;
  /** Counted as a change; directories emptied on the way are removed but not counted. */
  counted: boolean;
}

class Plan {
  readonly entries: Doomed[] = [];
  private readonly seen = new Set<string>();

  add(entry: Doomed): void {
    if (this.seen.has(entry.absolutePath)) return;
    this.seen.add(entry.absolutePath);
    if (this.entries.length >= MAX_DELETE_ENTRIES) {
      throw new GoondanError('E_TOOL', `More than ${MAX_DELETE_ENTRIES} entries to delete; delete in smaller parts.`);
    }
    this.entries.push(entry);
  }
}

/** Adds one named path: refused if it leads outside (links included), then taken as the entry itself. */
async function addPath(ctx: ToolContext, plan: Plan, userPath: string, recursive: boolean): Promise<void> {
  const target = await resolveInsideWorkdir(ctx.workdir, userPath);
  if (target.relativePath === '.') throw new GoondanError('E_TOOL', 'The workdir itself cannot be deleted.');
  if (!target.exists)
    throw new GoondanError('E_FILE_NOT_FOUND', `Nothing at '${target.relativePath}'; nothing was deleted.`);
  // The entry as named: a symlink inside the workdir is deleted itself, never the file it points to.
  const parent = await resolveInsideWorkdir(ctx.workdir, dirname(target.relativePath));
  const absolutePath = join(parent.realPath, basename(target.relativePath));
  const stats = await lstat(absolutePath);
  if (stats.isSymbolicLink() || !stats.isDirectory()) {
    const type = stats.isSymbolicLink() ? 'symlink' : stats.isFile() ? 'file' : 'other';
    plan.add({
      path: target.relativePath,
      absolutePath,
      type,
      size: type === 'file' ? stats.size : null,
      counted: true,
    });
    return;
  }
  const contents = await readdir(absolutePath);
  if (contents.length > 0 && !recursive) {
    throw new GoondanError(
      'E_TOOL',
      `'${target.relativePath}' is a directory with ${contents.length} entries; pass recursive: true to delete it with everything under it. Nothing was deleted.`,
    );
  }
  const directories: Doomed[] = [];
  let files = 0;
  for await (const entry of walkTree({ root: absolutePath, signal: ctx.signal, label: target.relativePath })) {
    const path = `${target.relativePath}/${entry.name}`;
    const isDirectory = entry.type === 'dir';
    const doomed = { path, absolutePath: entry.absolutePath, type: entry.type, size: null, counted: !isDirectory };
    if (isDirectory) directories.push(doomed);
    else {
      files += 1;
      plan.add({ ...doomed, size: entry.type === 'file' ? entry.size : null });
    }
  }
  // Directories go after their contents, deepest first; the named one counts itself when nothing else does.
  for (const directory of directories.reverse()) plan.add(directory);
  plan.add({ path: target.relativePath, absolutePath, type: 'dir', size: null, counted: files === 0 });
}

/** Adds every file and link matching the glob (relative to the workdir); directories are left in place. */
async function addGlob(ctx: ToolContext, plan: Plan, glob: string): Promise<void> {
  const { pattern, base } = checkGlob(glob);
  const root = await resolveInsideWorkdir(ctx.workdir, base);
  if (!root.exists) return;
  const matcher = new Bun.Glob(pattern);
  const prefix = root.relativePath === '.' ? '' : `${root.relativePath}/`;
  for await (const entry of walkTree({ root: root.realPath, signal: ctx.signal, label: glob })) {
    const path = prefix + entry.name;
    if (entry.type === 'dir' || !matcher.match(path)) continue;
    plan.add({
      path,
      absolutePath: entry.absolutePath,
      type: entry.type,
      size: entry.type === 'file' ? entry.size : null,
      counted: true,
    });
  }
}

function plural(count: number, one: string, many: string): string {
  return count === 0 ? '' : `${count} ${count === 1 ? one : many}`;
}

async function planDelete(ctx: ToolContext, input: DeleteInput): Promise<GuardrailPlan> {
  const { paths, glob } = input;
  if ((paths === undefined) === (glob === undefined))
    throw new GoondanError('E_TOOL_INVALID_ARGS', 'Give either paths (a list) or glob, not both and not neither.');
  const plan = new Plan();
  if (paths !== undefined) {
    if (!Array.isArray(paths) || paths.length === 0 || paths.length > MAX_DELETE_PATHS)
      throw new GoondanError('E_TOOL_INVALID_ARGS', `paths must be a list of 1 to ${MAX_DELETE_PATHS} paths.`);
    for (const path of paths) await addPath(ctx, plan, path, input.recursive === true);
  } else {
    await addGlob(ctx, plan, glob!);
  }
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
    apply: () => applyDelete(plan.entries),
  };
}

/** Removes the planned entries in order, skipping any that moved, changed type or filled up since the plan. */
async function applyDelete(entries: Doomed[]) {
  const deleted: string[] = [];
  const skipped: JsonObject[] = [];
  const parents = new Map<string, boolean>();
  for (const entry of entries) {
    // A parent swapped for a link since the plan would send unlink elsewhere: check the parent still is itself.
    const parent = dirname(entry.absolutePath);
    if (!parents.has(parent)) parents.set(parent, (await realpath(parent).catch(() => '')) === parent);
    const stats = await lstat(entry.absolutePath).catch(() => undefined);
    const type = stats ? (stats.isSymbolicLink() ? 'symlink' : stats.isDirectory() ? 'dir' : 'file') : undefined;
    if (!parents.get(parent) || type === undefined || (type === 'dir') !== (entry.type === 'dir')) {
      skipped.push({ path: entry.path, reason: type === undefined ? 'already gone' : 'changed since it was planned' });
      continue;
    }
    try {
      await (entry.type === 'dir' ? rmdir(entry.absolutePath) : unlink(entry.absolutePath));
      if (entry.counted) deleted.push(entry.path);
    } catch (thrown) {
      skipped.push({ path: entry.path, reason: `not deleted (${(thrown as { code?: string }).code ?? 'error'})` });
    }
  }
  return {
    deleted: deleted.length,
    paths: deleted.slice(0, PATHS_SHOWN),
    pathsTruncated: deleted.length > PATHS_SHOWN,
    skipped: skipped.slice(0, PATHS_SHOWN),
    skippedCount: skipped.length,
  };
}

/** `file-system__delete`: deletes files, links and directories inside the workdir, guarded (docs/guardrails.md). */
export const remove = withGuardrail(planDelete);
