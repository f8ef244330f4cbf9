import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { git } from './run-git.ts';

// How large one changeset may be (docs/changesets.md#limits). A commit is refused before anything of the changeset
// reaches git's object store, so an agent (or a hostile model) that writes into its changeset without end fills
// neither the repository nor, once activated, the bundle and every worktree opened from it.

/** One file the changeset adds or changes, as on disk: what one file-system__write takes. */
export const MAX_CHANGESET_FILE_BYTES = 10 * 1024 * 1024;
/** Every file the changeset adds or changes, together. */
export const MAX_CHANGESET_BYTES = 50 * 1024 * 1024;
/** Paths the changeset adds, changes or deletes (each one is listed in the commit's answer and activated). */
export const MAX_CHANGESET_FILES = 1_000;

/** A file of the changeset with its size, repository-relative. */
export interface SizedFile {
  path: string;
  bytes: number;
}

/** What a changeset over a limit holds, as its refusal says it. */
export interface ChangesetSize {
  /** Paths it adds, changes or deletes (counted until one past the limit when there are more). */
  files: number;
  /** Bytes of the files it adds or changes (not measured when there are too many files). */
  bytes: number;
  /** The largest files it adds or changes, at most 10, largest first. */
  largest: SizedFile[];
  /** How many files are over the per-file limit. */
  overFileLimit: number;
  limits: { fileBytes: number; bytes: number; files: number };
}

/** Which limit a changeset goes over, and what it holds; null when it is within every limit. */
export interface SizeVerdict {
  over: 'files' | 'file' | 'total';
  size: ChangesetSize;
}

const limits = { fileBytes: MAX_CHANGESET_FILE_BYTES, bytes: MAX_CHANGESET_BYTES, files: MAX_CHANGESET_FILES };

/**
 * Measures what committing the worktree would put into git, without putting anything there: the paths that differ
 * between `base` (where the changeset started) and the files (including commits made in the worktree by hand), and
 * the untracked files `git add -A` would take (ignored ones are not). Sizes are the files' on disk (lstat: a
 * symbolic link is its target's length, never followed).
 */
export async function measureChangeset(options: {
  worktree: string;
  env: Record<string, string>;
  base: string;
}): Promise<SizeVerdict | null> {
  const { worktree, env } = options;
  const split = (out: string) => out.split('\0').filter((path) => path !== '');
  const tracked = split(
    await git({ cwd: worktree, env, args: ['diff', '--name-only', '--no-renames', '-z', options.base, '--'] }),
  );
  const untracked = split(
    await git({ cwd: worktree, env, args: ['ls-files', '--others', '--exclude-standard', '-z', '--'] }),
  );
  const paths = [...new Set([...tracked, ...untracked])];
  if (paths.length > MAX_CHANGESET_FILES)
    return { over: 'files', size: { files: paths.length, bytes: 0, largest: [], overFileLimit: 0, limits } };
  const sized: SizedFile[] = [];
  for (const path of paths) {
    const stats = await lstat(join(worktree, path)).catch(() => null);
    // A deleted path adds nothing; a directory is an embedded repository git records as a link, not its files.
    if (stats && !stats.isDirectory()) sized.push({ path, bytes: stats.size });
  }
  const bytes = sized.reduce((sum, file) => sum + file.bytes, 0);
  const largest = sized.sort((one, other) => other.bytes - one.bytes);
  const overFileLimit = largest.filter((file) => file.bytes > MAX_CHANGESET_FILE_BYTES).length;
  const size = { files: paths.length, bytes, largest: largest.slice(0, 10), overFileLimit, limits };
  if (overFileLimit > 0) return { over: 'file', size };
  if (bytes > MAX_CHANGESET_BYTES) return { over: 'total', size };
  return null;
}

/** Bytes in words a person reads at a glance: `12.5 MiB (13107200 bytes)`. */
export function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return mib >= 0.1 ? `${Number.parseFloat(mib.toFixed(1))} MiB (${bytes} bytes)` : `${bytes} bytes`;
}
