import { realpathSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { GoondanError } from '@goondan/core/errors';
import { shellWord } from '@goondan/core/shell-word';
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
      suggestion: `Make it one: cd ${shellWord(dir)} && git init && printf '.goondan/\\n' >> .gitignore && git add -A && git commit -m bundle`,
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
      suggestion: `Commit the bundle first: cd ${shellWord(repoRoot)} && git add -A && git commit -m bundle`,
    });
  }
  await checkCommitted({ dir, repoRoot, prefix, activeRef });
  return {
    bundleDir: dir,
    repoRoot,
    prefix,
    activeRef,
    commonDir: isAbsolute(common) ? common : resolve(dir, common),
  };
}

/**
 * A changeset is a worktree of the active revision: a bundle whose goondan.yaml that revision lacks (a folder not
 * yet committed, or ignored, in a larger repository) would not be in it, so it is refused at the first call.
 */
async function checkCommitted(options: { dir: string; repoRoot: string; prefix: string; activeRef: string }) {
  const { dir, repoRoot, prefix, activeRef } = options;
  const file = `${prefix}goondan.yaml`;
  const committed = await runGit({ cwd: repoRoot, args: ['cat-file', '-e', `${activeRef}:${file}`] });
  if (committed.exitCode === 0) return;
  const ignored = (await runGit({ cwd: repoRoot, args: ['check-ignore', '-q', '--', file] })).exitCode === 0;
  const branch = activeRef.replace('refs/heads/', '');
  const where = prefix === '' ? '.' : prefix.replace(/\/$/, '');
  const own = `cd ${shellWord(dir)} && git init && printf '.goondan/\\n' >> .gitignore && git add -A && git commit -m bundle`;
  throw new GoondanError(
    'E_CHANGESET_FAILED',
    `The bundle at ${dir} is not committed in the git repository at ${repoRoot}: branch ${branch} has no ${file}${ignored ? ' (git ignores it)' : ''}, so a changeset would not contain it.`,
    {
      suggestion:
        prefix === ''
          ? `Commit the bundle first: cd ${shellWord(repoRoot)} && git add -A && git commit -m bundle`
          : `${ignored ? `Take ${where} out of the .gitignore that ignores it (git check-ignore -v ${shellWord(file)} names it), then commit` : 'Commit'} it in that repository, keeping its .goondan/ out (cd ${shellWord(repoRoot)} && printf '.goondan/\\n' >> ${shellWord(`${where}/.gitignore`)} && git add ${shellWord(where)} && git commit -m bundle), or make the bundle a repository of its own: ${own}`,
    },
  );
}

/** The active revision: the tip of the checked-out branch. */
export function activeRevision(repository: BundleRepository): Promise<string> {
  return git({ cwd: repository.repoRoot, args: ['rev-parse', '--verify', `${repository.activeRef}^{commit}`] });
}
