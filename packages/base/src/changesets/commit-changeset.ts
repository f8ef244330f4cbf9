import { isAbsolute, join, relative } from 'node:path';
import { type ErrorCode, errorCodes, GoondanError, helpUrlFor, loadBundle } from '@goondan/core';
import { activateRevision } from './activate-revision.ts';
import { changedPolicyViolations } from './changeset-policy.ts';
import { findChangeset } from './changeset-worktrees.ts';
import { activeRevision, type BundleRepository } from './locate-bundle-repository.ts';
import { git, runGit } from './run-git.ts';

/** One file the change touches, relative to the bundle directory. */
export interface ChangedFile {
  path: string;
  change: 'added' | 'modified' | 'deleted';
}

/** One validation problem of the changed bundle, the file relative to the changeset's bundle directory. */
export interface ChangesetProblem {
  code: string;
  message: string;
  file: string;
  line: number;
  column: number;
}

interface Coded {
  code: ErrorCode;
  message: string;
  suggestion: string;
  helpUrl: string;
}

/** The answer of a commit (v1 §12.4 rule 1): exactly one of ok, rejected, conflict, failed. */
export type CommitOutcome =
  | { status: 'ok'; changeset: string; revision: string; previous: string; merged: boolean; changed: ChangedFile[] }
  | ({ status: 'rejected'; changeset: string; problems: ChangesetProblem[]; outsidePolicy: string[] } & Coded)
  | ({ status: 'conflict'; changeset: string; active: string; files: string[] } & Coded)
  | ({ status: 'failed'; changeset: string } & Coded);

const MAX_ATTEMPTS = 5;
const changeKinds: Record<string, ChangedFile['change']> = { A: 'added', D: 'deleted' };

function coded(code: ErrorCode, message: string, suggestion?: string): Coded {
  return { code, message, suggestion: suggestion ?? errorCodes[code].suggestion, helpUrl: helpUrlFor(code) };
}

/**
 * Commits an open changeset (docs/changesets.md): commits what is in its worktree, checks the changed paths against
 * the policy, merges with the active revision if it moved (`git merge-tree`), validates the merged bundle with the
 * loader, then activates it by compare-and-swap. Only `ok` closes the changeset; otherwise it stays open to fix.
 */
export async function commitChangeset(options: {
  repository: BundleRepository;
  changeset: string;
  message: string;
  /** Globs of bundle-relative paths the changeset may change (`.goondan/` never). */
  allowedPaths: readonly string[];
  /** Libraries the bundle is loaded with (the base tools). */
  libraries: string[];
  author?: { name: string; email: string };
}): Promise<CommitOutcome> {
  const { repository, changeset } = options;
  try {
    return await commitOpen(options);
  } catch (thrown) {
    if (thrown instanceof GoondanError && thrown.code === 'E_CHANGESET_FAILED')
      return { status: 'failed', changeset, ...coded(thrown.code, thrown.message, thrown.suggestion) };
    if (thrown instanceof GoondanError) throw thrown;
    const message = `Changeset '${changeset}' of ${repository.repoRoot}: ${(thrown as Error)?.message ?? thrown}`;
    return { status: 'failed', changeset, ...coded('E_CHANGESET_FAILED', message) };
  }
}

async function commitOpen(options: Parameters<typeof commitChangeset>[0]): Promise<CommitOutcome> {
  const { repository, changeset } = options;
  const open = await findChangeset(repository, changeset);
  if (!open.worktree) throw new GoondanError('E_CHANGESET_NOT_FOUND', `Changeset '${changeset}' has no worktree.`);
  const worktree = open.worktree;
  const env: Record<string, string> = options.author
    ? {
        GIT_AUTHOR_NAME: options.author.name,
        GIT_AUTHOR_EMAIL: options.author.email,
        GIT_COMMITTER_NAME: options.author.name,
        GIT_COMMITTER_EMAIL: options.author.email,
      }
    : {};
  const trailer = `\n\nGoondan-Changeset: ${changeset}`;
  await git({ cwd: worktree, args: ['add', '-A'] });
  const staged = await runGit({ cwd: worktree, args: ['diff', '--cached', '--quiet'] });
  if (staged.exitCode !== 0)
    await git({ cwd: worktree, env, args: ['commit', '--quiet', '--no-verify', '-m', `${options.message}${trailer}`] });

  for (let attempt = 1; ; attempt += 1) {
    const active = await activeRevision(repository);
    const tip = await git({ cwd: worktree, args: ['rev-parse', 'HEAD'] });
    const base = await git({ cwd: worktree, args: ['merge-base', active, tip] });
    const changed = await changedFiles(worktree, base, tip);
    const outsidePolicy = changedPolicyViolations({
      paths: changed.map((file) => file.path),
      prefix: repository.prefix,
      allowed: options.allowedPaths,
    });
    if (outsidePolicy.length > 0) {
      const message = `Changeset '${changeset}' changes paths the policy does not allow: ${outsidePolicy.join(', ')}.`;
      const suggestion = `Undo the changes to those paths in the changeset (allowed: ${options.allowedPaths.join(', ')}; never .goondan/), then commit again.`;
      return {
        status: 'rejected',
        changeset,
        problems: [],
        outsidePolicy,
        ...coded('E_CHANGESET_REJECTED', message, suggestion),
      };
    }
    let revision = tip;
    if (base !== active) {
      const merged = await runGit({
        cwd: worktree,
        args: ['merge-tree', '--write-tree', '--name-only', '--no-messages', active, tip],
      });
      if (merged.exitCode === 1) {
        const files = merged.stdout
          .split('\n')
          .slice(1)
          .filter((line) => line !== '');
        return conflict(changeset, active, files, repository.prefix);
      }
      if (merged.exitCode !== 0)
        throw new GoondanError('E_CHANGESET_FAILED', `git merge-tree failed: ${merged.stderr.trim()}`);
      const tree = merged.stdout.split('\n')[0]!.trim();
      const subject = `Merge changeset ${changeset} into ${repository.activeRef.replace('refs/heads/', '')}${trailer}`;
      revision = await git({ cwd: worktree, env, args: ['commit-tree', tree, '-p', active, '-p', tip, '-m', subject] });
      await git({ cwd: worktree, args: ['merge', '--quiet', '--ff-only', revision] });
    }
    const problems = await validate(join(worktree, repository.prefix), options.libraries);
    if (problems.length > 0) {
      const first = problems[0]!;
      const message = `The changed bundle does not validate (${problems.length} problem${problems.length === 1 ? '' : 's'}; first: ${first.file}:${first.line}:${first.column} ${first.message}).`;
      return { status: 'rejected', changeset, problems, outsidePolicy: [], ...coded('E_CHANGESET_REJECTED', message) };
    }
    const outcome = await activateRevision({
      repository,
      expected: active,
      revision,
      reason: `goondan: activate changeset ${changeset}`,
    });
    if (outcome.type === 'moved') {
      if (attempt >= MAX_ATTEMPTS)
        throw new GoondanError(
          'E_CHANGESET_FAILED',
          `The active revision kept moving during ${MAX_ATTEMPTS} attempts.`,
          {
            suggestion: 'Other changes are being activated right now; commit the changeset again in a moment.',
          },
        );
      continue;
    }
    const changes = await changedFiles(worktree, active, revision);
    await git({ cwd: repository.repoRoot, args: ['worktree', 'remove', '--force', worktree] });
    await git({ cwd: repository.repoRoot, args: ['branch', '-D', '--quiet', open.branch.slice('refs/heads/'.length)] });
    return {
      status: 'ok',
      changeset,
      revision,
      previous: active,
      merged: revision !== tip,
      changed: changes.map(bundleRelative(repository.prefix)),
    };
  }
}

function conflict(changeset: string, active: string, files: string[], prefix: string): CommitOutcome {
  const shown = files.map((file) => (file.startsWith(prefix) ? file.slice(prefix.length) : file));
  const message = `The active bundle moved to ${active.slice(0, 12)} since the changeset started, and both changed ${shown.join(', ')}.`;
  const suggestion = `Read the active version of ${shown.join(', ')} (git show ${active.slice(0, 12)}:<path>), redo your edit in the changeset on top of it, then commit again; or discard the changeset and open a new one.`;
  return { status: 'conflict', changeset, active, files: shown, ...coded('E_CHANGESET_CONFLICT', message, suggestion) };
}

/** Files changed between two revisions, repository-relative, with what happened to each. */
async function changedFiles(cwd: string, from: string, to: string): Promise<ChangedFile[]> {
  const out = await git({ cwd, args: ['diff', '--name-status', '--no-renames', '-z', from, to] });
  const parts = out.split('\0').filter((part) => part !== '');
  const files: ChangedFile[] = [];
  for (let index = 0; index + 1 < parts.length; index += 2) {
    files.push({ path: parts[index + 1]!, change: changeKinds[parts[index]!] ?? 'modified' });
  }
  return files;
}

function bundleRelative(prefix: string) {
  return (file: ChangedFile): ChangedFile => ({
    ...file,
    path: file.path.startsWith(prefix) ? file.path.slice(prefix.length) : file.path,
  });
}

async function validate(bundleDir: string, libraries: string[]): Promise<ChangesetProblem[]> {
  const { problems } = await loadBundle({ dir: bundleDir, libraries, importHandlers: false });
  return problems.map((problem) => {
    const file = isAbsolute(problem.file) ? relative(bundleDir, problem.file) : problem.file;
    return { code: problem.code, message: problem.message, file, line: problem.line, column: problem.column };
  });
}
