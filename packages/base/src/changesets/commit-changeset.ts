import { existsSync } from 'node:fs';
import { isAbsolute, join, posix, relative } from 'node:path';
import { GoondanError, loadBundle } from '@goondan/core';
import { activateRevision } from './activate-revision.ts';
import {
  formatBytes,
  MAX_CHANGESET_BYTES,
  MAX_CHANGESET_FILE_BYTES,
  MAX_CHANGESET_FILES,
  measureChangeset,
  type SizeVerdict,
} from './changeset-limits.ts';
import { changedPolicyViolations } from './changeset-policy.ts';
import { findChangeset, removeWorktree, worktreeGitEnv } from './changeset-worktrees.ts';
import {
  type AfterFailure,
  type ChangedFile,
  type ChangesetProblem,
  type CommitOutcome,
  coded,
  conflictOutcome,
  failedSuggestion,
  rejectedSuggestion,
} from './commit-outcome.ts';
import { type FinishedActivation, finishInterruptedActivation } from './finish-activation.ts';
import { activeRevision, type BundleRepository } from './locate-bundle-repository.ts';
import { discardChangeset } from './open-changeset.ts';
import { git, runGit } from './run-git.ts';

export type { AfterFailure, ChangedFile, ChangesetProblem, CommitOutcome } from './commit-outcome.ts';

const MAX_ATTEMPTS = 5;
const changeKinds: Record<string, ChangedFile['change']> = { A: 'added', D: 'deleted' };

/**
 * Commits an open changeset (docs/changesets.md): commits what is in its worktree, checks the changed paths against
 * the policy, merges with the active revision if it moved (`git merge-tree`), validates the merged bundle with the
 * loader, then activates it by compare-and-swap. Only `ok` closes the changeset; otherwise it stays open to fix, or
 * is discarded when `afterFailure` says so. A changeset that changes nothing the active revision does not already
 * have makes no revision (no empty merge commit): `ok` with `revision` equal to `previous`.
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
  /** What is left after an answer other than ok (default: the changeset stays open). */
  afterFailure?: AfterFailure;
}): Promise<CommitOutcome> {
  const { repository, changeset } = options;
  const after = options.afterFailure ?? { type: 'keep' };
  if (options.message.includes('\0'))
    throw new GoondanError(
      'E_TOOL_INVALID_ARGS',
      'The commit message contains a NUL character, which git cannot take.',
      {
        suggestion: 'Send the message without \\u0000.',
      },
    );
  let outcome: CommitOutcome;
  try {
    outcome = await commitOpen(options, after);
  } catch (thrown) {
    if (thrown instanceof GoondanError && thrown.code !== 'E_CHANGESET_FAILED') throw thrown;
    const message =
      thrown instanceof GoondanError
        ? thrown.message
        : `Changeset '${changeset}' of ${repository.repoRoot}: ${(thrown as Error)?.message ?? thrown}`;
    const fix = thrown instanceof GoondanError ? thrown.suggestion : undefined;
    outcome = { status: 'failed', changeset, ...coded('E_CHANGESET_FAILED', message, failedSuggestion(fix, after)) };
  }
  if (after.type === 'discard' && outcome.status !== 'ok')
    await discardChangeset({ repository, changeset }).catch(() => undefined);
  return outcome;
}

async function commitOpen(options: Parameters<typeof commitChangeset>[0], after: AfterFailure): Promise<CommitOutcome> {
  const { repository, changeset } = options;
  const open = await findChangeset(repository, changeset);
  if (!open.worktree) throw new GoondanError('E_CHANGESET_NOT_FOUND', `Changeset '${changeset}' has no worktree.`);
  const worktree = open.worktree;
  if (!existsSync(worktree))
    throw new GoondanError(
      'E_CHANGESET_FAILED',
      `The workdir of changeset '${changeset}' (${worktree}) is gone; nothing was committed.`,
      {
        suggestion: `Open it again (swarm-bundle__open_changeset {"name":"${changeset}"} brings it back at its last commit; edits that were only in the deleted folder are lost) and redo what is missing, or discard it`,
      },
    );
  // Git in the worktree is pinned to it (its .git file is the agent's to rewrite); the rest runs at the repository.
  const pinned = worktreeGitEnv(repository, worktree, changeset);
  const root = repository.repoRoot;
  const env: Record<string, string> = options.author
    ? {
        GIT_AUTHOR_NAME: options.author.name,
        GIT_AUTHOR_EMAIL: options.author.email,
        GIT_COMMITTER_NAME: options.author.name,
        GIT_COMMITTER_EMAIL: options.author.email,
      }
    : {};
  const trailer = `\n\nGoondan-Changeset: ${changeset}`;
  // Measured before git add: a changeset over a limit leaves nothing in the object store, its index and branch as
  // they were (docs/changesets.md#limits).
  const head = await git({ cwd: worktree, env: pinned, args: ['rev-parse', 'HEAD'] });
  const started = await runGit({ cwd: root, args: ['merge-base', await activeRevision(repository), head] });
  const verdict = await measureChangeset({
    worktree,
    env: pinned,
    base: started.exitCode === 0 ? started.stdout.trim() : head,
  });
  if (verdict) return tooLargeOutcome({ changeset, verdict, prefix: repository.prefix, after });
  await git({ cwd: worktree, env: pinned, args: ['add', '-A'] });
  const staged = await runGit({ cwd: worktree, env: pinned, args: ['diff', '--cached', '--quiet'] });
  if (staged.exitCode !== 0) {
    // A commit an earlier attempt made (then rejected, conflicting or failed) is replaced, not built on: activated,
    // it would sit on the active branch with its trailer, listed as an activated revision it never was.
    const amend = (await unactivatedAttempt(root, repository.activeRef, worktree, pinned, changeset))
      ? ['--amend', '--allow-empty']
      : [];
    await git({
      cwd: worktree,
      env: { ...pinned, ...env },
      args: ['commit', '--quiet', '--no-verify', ...amend, '-m', `${options.message}${trailer}`],
    });
  }

  let finished: FinishedActivation | undefined;
  for (let attempt = 1; ; attempt += 1) {
    const active = await activeRevision(repository);
    const tip = await git({ cwd: worktree, env: pinned, args: ['rev-parse', 'HEAD'] });
    const dropped = await droppedRevisions({ cwd: root, activeRef: repository.activeRef, active, tip, changeset });
    if (dropped.length > 0) {
      // The person rewrote the active branch (git reset, an amend) or checked out another one since the changeset
      // was opened: merging would bring in what that branch does not have. Only a changeset opened at the active revision is free of it.
      const start = dropped[0]!.revision;
      const files = await changedFiles(root, await git({ cwd: root, args: ['merge-base', active, start] }), start);
      const named = dropped
        .slice(0, 5)
        .map((entry) => `${entry.revision.slice(0, 12)} "${entry.subject}"`)
        .join(', ');
      const message = `The active branch ${repository.activeRef.replace('refs/heads/', '')} does not have ${dropped.length} revision${dropped.length === 1 ? '' : 's'} changeset '${changeset}' started from (${named}): it was rewritten, or another branch was checked out, since the changeset was opened, and committing would bring ${dropped.length === 1 ? 'it' : 'them'} in. Nothing was activated.`;
      return conflictOutcome({
        changeset,
        active,
        files: files.map(bundleRelative(repository.prefix)).map((file) => file.path),
        after,
        message,
      });
    }
    const base = await git({ cwd: root, args: ['merge-base', active, tip] });
    const changed = await changedFiles(root, base, tip);
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
        ...coded('E_CHANGESET_REJECTED', message, rejectedSuggestion(after) ?? suggestion),
      };
    }
    const leadingOut = await linksLeadingOut(root, tip, changed, repository.prefix);
    if (leadingOut.length > 0) {
      const message = `Changeset '${changeset}' adds symbolic links that lead out of the bundle: ${leadingOut.map((link) => `${link.path} -> ${link.target}`).join(', ')}.`;
      const suggestion = `Replace each link with the file itself (or a link to a path inside the bundle, not into .git or .goondan/), then commit again: what a link outside points at would change the bundle with no changeset.`;
      return {
        status: 'rejected',
        changeset,
        problems: [],
        outsidePolicy: leadingOut.map((link) => link.path),
        ...coded('E_CHANGESET_REJECTED', message, rejectedSuggestion(after) ?? suggestion),
      };
    }
    let revision = tip;
    if (base === tip) {
      // The changeset made no commit (or the active revision already has it): nothing to merge or activate.
      revision = active;
    } else if (base !== active) {
      const merged = await runGit({
        cwd: root,
        args: ['merge-tree', '--write-tree', '--name-only', '--no-messages', active, tip],
      });
      if (merged.exitCode === 1) {
        const files = merged.stdout
          .split('\n')
          .slice(1)
          .filter((line) => line !== '');
        const shown = files.map((file) =>
          file.startsWith(repository.prefix) ? file.slice(repository.prefix.length) : file,
        );
        return conflictOutcome({ changeset, active, files: shown, after });
      }
      if (merged.exitCode !== 0)
        throw new GoondanError('E_CHANGESET_FAILED', `git merge-tree failed: ${merged.stderr.trim()}`);
      const tree = merged.stdout.split('\n')[0]!.trim();
      if (tree === (await git({ cwd: root, args: ['rev-parse', `${active}^{tree}`] }))) {
        // The active revision has every change the changeset makes: a merge would be an empty commit.
        revision = active;
      } else {
        const subject = `Merge changeset ${changeset} into ${repository.activeRef.replace('refs/heads/', '')}${trailer}`;
        revision = await git({
          cwd: root,
          env,
          args: ['commit-tree', tree, '-p', active, '-p', tip, '-m', subject],
        });
        await git({ cwd: worktree, env: pinned, args: ['merge', '--quiet', '--ff-only', revision] });
      }
    }
    if (revision === active || (await sameTree(root, revision, active))) {
      await closeChangeset(repository, worktree, open.branch);
      // Nothing to activate, but an interrupted activation (this changeset's own, killed before it closed) is finished.
      const interrupted = await finishInterruptedActivation(repository);
      const finishedActivation = finished ?? interrupted;
      return {
        status: 'ok',
        changeset,
        revision: active,
        previous: active,
        merged: false,
        changed: [],
        ...(finishedActivation ? { finishedActivation } : {}),
      };
    }
    const unignoring = await stopsIgnoringState({ repository, worktree, pinned, changed });
    if (unignoring.length > 0) {
      const message = `Changeset '${changeset}' makes git stop ignoring .goondan/ (the runtime's state: conversations, workspaces, the changesets' own worktrees), which a person's next git add -A would commit: ${unignoring.join(', ')}.`;
      return {
        status: 'rejected',
        changeset,
        problems: [],
        outsidePolicy: unignoring,
        ...coded(
          'E_CHANGESET_REJECTED',
          message,
          rejectedSuggestion(after) ??
            'Keep .goondan/ in .gitignore (undo that change in the changeset), then commit again.',
        ),
      };
    }
    const problems = await validate(join(worktree, repository.prefix), options.libraries);
    if (problems.length > 0) {
      const first = problems[0]!;
      const message = `The changed bundle does not validate (${problems.length} problem${problems.length === 1 ? '' : 's'}; first: ${first.file}:${first.line}:${first.column} ${first.message}).`;
      const suggestion = rejectedSuggestion(after);
      return {
        status: 'rejected',
        changeset,
        problems,
        outsidePolicy: [],
        ...coded('E_CHANGESET_REJECTED', message, suggestion),
      };
    }
    const outcome = await activateRevision({
      repository,
      expected: active,
      revision,
      changeset,
    });
    finished ??= outcome.finished;
    if (outcome.type === 'moved') {
      if (attempt >= MAX_ATTEMPTS)
        throw new GoondanError(
          'E_CHANGESET_FAILED',
          `The active revision kept moving during ${MAX_ATTEMPTS} attempts.`,
          {
            suggestion: 'Other changes are being activated right now: wait a moment',
          },
        );
      continue;
    }
    const changes = await changedFiles(root, active, revision);
    await closeChangeset(repository, worktree, open.branch);
    return {
      status: 'ok',
      changeset,
      revision,
      previous: active,
      merged: revision !== tip,
      changed: changes.map(bundleRelative(repository.prefix)),
      ...(finished ? { finishedActivation: finished } : {}),
    };
  }
}

/** The `rejected` answer of a changeset over a limit: which limit, what it holds, what to do. */
function tooLargeOutcome(options: {
  changeset: string;
  verdict: SizeVerdict;
  prefix: string;
  after: AfterFailure;
}): CommitOutcome {
  const { changeset, verdict, prefix, after } = options;
  const { size } = verdict;
  const largest = size.largest.map((file) => ({
    ...file,
    path: file.path.startsWith(prefix) ? file.path.slice(prefix.length) : file.path,
  }));
  const named = (files: typeof largest) => files.map((file) => `${file.path} (${formatBytes(file.bytes)})`).join(', ');
  const untouched = 'Nothing was committed; the files in its workdir are as they were.';
  let message: string;
  let fix: string;
  if (verdict.over === 'files') {
    message = `Changeset '${changeset}' adds, changes or deletes ${size.files} files; at most ${MAX_CHANGESET_FILES} can be in one changeset. ${untouched}`;
    fix =
      'Make the change in smaller changesets: undo (or delete from the workdir) what this one does not need, and list files git should not hold (build output, dependencies) in .gitignore';
  } else if (verdict.over === 'file') {
    const over = largest.filter((file) => file.bytes > MAX_CHANGESET_FILE_BYTES);
    const more = size.overFileLimit > over.length ? ` and ${size.overFileLimit - over.length} more` : '';
    message = `Changeset '${changeset}' adds or changes ${size.overFileLimit === 1 ? 'a file' : `${size.overFileLimit} files`} over ${formatBytes(MAX_CHANGESET_FILE_BYTES)}, the most one file of a changeset may hold: ${named(over)}${more}. ${untouched}`;
    fix = `Make ${size.overFileLimit === 1 ? 'that file' : 'those files'} smaller, or delete ${size.overFileLimit === 1 ? 'it' : 'them'} from the changeset workdir (a file this large belongs outside the bundle, or in .gitignore)`;
  } else {
    message = `Changeset '${changeset}' adds or changes ${formatBytes(size.bytes)} in ${size.files} files; at most ${formatBytes(MAX_CHANGESET_BYTES)} can be in one changeset (largest: ${named(largest.slice(0, 5))}). ${untouched}`;
    fix =
      'Make the change in smaller changesets: undo (or delete from the workdir) the files this one does not need, and list files git should not hold (build output, dependencies) in .gitignore';
  }
  const suggestion =
    after.type === 'keep'
      ? `${fix}, then commit again; the changeset is still open.`
      : `The changeset was discarded; nothing was changed. ${fix}, then ${after.retry}.`;
  return {
    status: 'rejected',
    changeset,
    problems: [],
    outsidePolicy: [],
    tooLarge: { ...size, largest },
    ...coded('E_CHANGESET_TOO_LARGE', message, suggestion),
  };
}

/**
 * The changed paths that are symbolic links (mode 120000) at `tip` leading out of the bundle: an absolute target,
 * or a relative one that climbs out of the bundle directory or into `.git` or `.goondan/`. Activated, such a link
 * would make the bundle read a file no changeset, validation or approval ever sees (and validation would read it).
 */
async function linksLeadingOut(
  cwd: string,
  tip: string,
  changed: ChangedFile[],
  prefix: string,
): Promise<{ path: string; target: string }[]> {
  const present = changed.filter((file) => file.change !== 'deleted').map((file) => `:(literal)${file.path}`);
  if (present.length === 0) return [];
  const listed = await git({ cwd, args: ['ls-tree', '-z', '--full-tree', tip, '--', ...present] });
  const out: { path: string; target: string }[] = [];
  for (const entry of listed.split('\0')) {
    const match = /^120000 blob ([0-9a-f]+)\t(.*)$/s.exec(entry);
    if (!match) continue;
    const [, blob = '', path = ''] = match;
    const target = (await runGit({ cwd, args: ['cat-file', 'blob', blob] })).stdout;
    const lands = posix.normalize(posix.join(posix.dirname(path), target));
    const inBundle = lands.startsWith(prefix) ? lands.slice(prefix.length) : null;
    const outside =
      posix.isAbsolute(target) ||
      inBundle === null ||
      inBundle === '..' ||
      inBundle.startsWith('../') ||
      /^(\.git|\.goondan)(\/|$)/.test(inBundle);
    if (outside) out.push({ path: path.startsWith(prefix) ? path.slice(prefix.length) : path, target });
  }
  return out;
}

/**
 * The changed `.gitignore` files (bundle-relative) when the changed bundle no longer has git ignore `.goondan/`
 * while the active one does; empty otherwise, and when no `.gitignore` changed.
 */
async function stopsIgnoringState(options: {
  repository: BundleRepository;
  worktree: string;
  pinned: Record<string, string>;
  changed: ChangedFile[];
}): Promise<string[]> {
  const { repository, worktree, pinned } = options;
  const ignores = options.changed.filter((file) => posix.basename(file.path) === '.gitignore').map((file) => file.path);
  if (ignores.length === 0) return [];
  const probe = `${repository.prefix}.goondan/state`;
  const check = ['check-ignore', '-q', '--no-index', '--', probe];
  const before = await runGit({ cwd: repository.repoRoot, args: check });
  if (before.exitCode !== 0) return [];
  const now = await runGit({ cwd: worktree, env: pinned, args: check });
  if (now.exitCode !== 1) return [];
  return ignores.map((path) => (path.startsWith(repository.prefix) ? path.slice(repository.prefix.length) : path));
}

/**
 * The revisions a changeset started from that the active branch no longer has (newest first): commits of
 * `active..tip` the changeset did not make (no trailer naming it) whose newest was once the tip of the active branch
 * (its reflog says so; without a reflog, any such commit). A commit a person made in the worktree by hand was never
 * the active tip, and is not one.
 */
async function droppedRevisions(options: {
  cwd: string;
  activeRef: string;
  active: string;
  tip: string;
  changeset: string;
}): Promise<{ revision: string; subject: string }[]> {
  const { cwd, activeRef, active, tip, changeset } = options;
  const log = await git({
    cwd,
    args: ['log', '--format=%H%x1f%s%x1f%(trailers:key=Goondan-Changeset,valueonly)%x1e', `${active}..${tip}`, '--'],
  });
  const foreign = log
    .split('\x1e')
    .map((record) => record.trim())
    .filter((record) => record !== '')
    .map((record) => record.split('\x1f'))
    .filter(([, , trailer = '']) => trailer.trim() !== changeset)
    .map(([revision = '', subject = '']) => ({ revision, subject }));
  if (foreign.length === 0) return [];
  // The active branch's reflog has it when the branch was rewritten; HEAD's when another branch was checked out.
  const tips: string[] = [];
  for (const ref of [activeRef, 'HEAD']) {
    const reflog = await runGit({ cwd, args: ['log', '-g', '--format=%H', ref, '--'] });
    if (reflog.exitCode === 0) tips.push(...reflog.stdout.split('\n').filter((line) => line !== ''));
  }
  return tips.length === 0 || tips.includes(foreign[0]!.revision) ? foreign : [];
}

/**
 * Whether the worktree's HEAD is a commit of an earlier attempt at this changeset that was never activated: it
 * carries this changeset's trailer and the active branch does not contain it. A commit a person made in the
 * worktree (no trailer) is never replaced.
 */
async function unactivatedAttempt(
  root: string,
  activeRef: string,
  worktree: string,
  pinned: Record<string, string>,
  changeset: string,
): Promise<boolean> {
  const head = await git({ cwd: worktree, env: pinned, args: ['rev-parse', 'HEAD'] });
  // 1: not an ancestor; 0 (the active branch has it) or an error: leave it be.
  const contained = await runGit({ cwd: root, args: ['merge-base', '--is-ancestor', head, activeRef] });
  if (contained.exitCode !== 1) return false;
  const trailer = await git({
    cwd: root,
    args: ['log', '-1', '--format=%(trailers:key=Goondan-Changeset,valueonly)', head, '--'],
  });
  return trailer.trim() === changeset;
}

async function sameTree(cwd: string, one: string, other: string): Promise<boolean> {
  const trees = await git({ cwd, args: ['rev-parse', `${one}^{tree}`, `${other}^{tree}`] });
  const [first, second] = trees.split('\n');
  return first === second;
}

/** A committed changeset is closed: its worktree and its branch go (the revision stays in the active branch). */
async function closeChangeset(repository: BundleRepository, worktree: string, branch: string): Promise<void> {
  await removeWorktree(repository, worktree);
  await git({ cwd: repository.repoRoot, args: ['branch', '-D', '--quiet', branch.slice('refs/heads/'.length)] });
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
