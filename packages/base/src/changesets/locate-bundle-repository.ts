import { realpathSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { GoondanError } from '@goondan/core/errors';
import { git, runGit } from './run-git.ts';

/** The git facts a changeset needs about a bundle: where its repository is and which branch is active. */
export interface BundleRepository {
  /** Absolute bundle directory (holds goondan.yaml). */
  bundleDir: string;
  /** Top of the main working tree. */
  repoRoot: string;
  /** The bundle's path inside the repository, '' or ending in '/'. */
  prefix: string;
  /** The branch checked out in the main working tree: its tip is the active revision. */
  activeRef: string;
  /** The repository's git directory shared by all worktrees (absolute). */
  commonDir: string;
}

/**
 * Finds the repository of a bundle. The active bundle is the checked-out branch of the repository the bundle
 * directory lies in (docs/changesets.md); a bundle outside git, or a detached HEAD, cannot take changesets.
 */
export async function locateBundleRepository(bundleDir: string): Promise<BundleRepository> {
  const dir = realpathSync(bundleDir);
  const probe = await runGit({ cwd: dir, args: ['rev-parse', '--show-toplevel', '--show-prefix', '--git-common-dir'] });
  if (probe.exitCode !== 0) {
    throw new GoondanError('E_CHANGESET_FAILED', `The bundle at ${dir} is not inside a git repository.`, {
      suggestion: `Make it one: cd ${dir} && git init && printf '.goondan/\\n' > .gitignore && git add -A && git commit -m bundle`,
    });
  }
  const [repoRoot = dir, prefix = '', common = '.git'] = probe.stdout.split('\n');
  const head = await runGit({ cwd: dir, args: ['symbolic-ref', '-q', 'HEAD'] });
  if (head.exitCode !== 0) {
    throw new GoondanError('E_CHANGESET_FAILED', `The repository at ${repoRoot} has a detached HEAD.`, {
      suggestion: 'Check out the branch that holds the active bundle (git switch main), then try again.',
    });
  }
  const activeRef = head.stdout.trim();
  const hasCommit = await runGit({ cwd: dir, args: ['rev-parse', '--verify', '-q', `${activeRef}^{commit}`] });
  if (hasCommit.exitCode !== 0) {
    throw new GoondanError('E_CHANGESET_FAILED', `Branch ${activeRef} of ${repoRoot} has no commit yet.`, {
      suggestion: `Commit the bundle first: cd ${repoRoot} && git add -A && git commit -m bundle`,
    });
  }
  return {
    bundleDir: dir,
    repoRoot,
    prefix,
    activeRef,
    commonDir: isAbsolute(common) ? common : resolve(dir, common),
  };
}

/** The active revision: the tip of the checked-out branch. */
export function activeRevision(repository: BundleRepository): Promise<string> {
  return git({ cwd: repository.repoRoot, args: ['rev-parse', '--verify', `${repository.activeRef}^{commit}`] });
}
