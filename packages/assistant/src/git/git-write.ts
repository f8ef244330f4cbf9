import { GoondanError } from '@goondan/core/errors';
import type { GitRepository } from './git-repository.ts';
import { gitOutput } from './git-repository.ts';

/** Identity options for commits: config.authorName / config.authorEmail, when the repository has none of its own. */
export interface CommitIdentity {
  name?: string;
  email?: string;
}

async function currentBranch(repo: GitRepository): Promise<string | null> {
  const run = await repo.git(['symbolic-ref', '--quiet', '--short', 'HEAD']);
  return run.exitCode === 0 ? run.stdout.trim() : null;
}

/**
 * git__commit: stages every change under the path (new, changed and deleted files; default the whole repository)
 * and commits it with `message`. Nothing to commit is E_GIT_FAILED; hooks never run.
 */
export async function gitCommit(repo: GitRepository, message: string, identity: CommitIdentity) {
  if (message.trim() === '') throw new GoondanError('E_TOOL_INVALID_ARGS', 'The commit message is empty.');
  const spec = repo.pathspec ? ['--', repo.pathspec] : [];
  gitOutput(await repo.git(['add', '--all', ...(spec.length ? spec : ['--', '.'])]), 'add');
  const staged = await repo.git(['diff', '--cached', '--quiet', '--no-ext-diff', ...spec]);
  if (staged.exitCode === 0) {
    throw new GoondanError('E_GIT_FAILED', `Nothing to commit in '${repo.pathspec ?? repo.name}': no changes.`, {
      suggestion: 'Change a file first; git__status shows what changed.',
    });
  }
  const who = [
    ...(identity.name ? ['-c', `user.name=${identity.name}`] : []),
    ...(identity.email ? ['-c', `user.email=${identity.email}`] : []),
  ];
  gitOutput(await repo.git([...who, 'commit', '--no-verify', '--quiet', '-m', message, ...spec]), 'commit');
  const shown = gitOutput(await repo.git(['show', '--no-color', '--no-patch', '--format=%H%x1f%s', 'HEAD']), 'show');
  const [hash = '', subject = ''] = shown.trim().split('\x1f');
  const stat = gitOutput(await repo.git(['show', '--no-color', '--format=', '--shortstat', 'HEAD']), 'show').trim();
  return { repository: repo.name, branch: await currentBranch(repo), commit: hash, subject, summary: stat };
}

async function checkBranchName(repo: GitRepository, name: string | undefined): Promise<string> {
  if (!name) throw new GoondanError('E_TOOL_INVALID_ARGS', 'This branch action needs a name.');
  const run = await repo.git(['check-ref-format', '--branch', name]);
  if (run.exitCode !== 0 || name.startsWith('-')) {
    throw new GoondanError('E_TOOL_INVALID_ARGS', `'${name}' is not a valid branch name.`, {
      suggestion: 'Use letters, digits, -, _ , / and .; no spaces, no "..", not starting with "-".',
    });
  }
  return name;
}

async function listBranches(repo: GitRepository) {
  const run = await repo.git([
    'branch',
    '--no-color',
    '--format=%(HEAD)%1f%(refname:short)%1f%(objectname:short)%1f%(subject)',
  ]);
  const branches = gitOutput(run, 'branch')
    .split('\n')
    .filter((line) => line.includes('\x1f'))
    .map((line) => {
      const [head = '', name = '', commit = '', subject = ''] = line.split('\x1f');
      return { name, current: head === '*', commit, subject };
    });
  return { repository: repo.name, current: await currentBranch(repo), branches };
}

/** git__branch: list, create (at HEAD), switch (refused over local changes git would lose) or delete (merged only). */
export async function gitBranch(repo: GitRepository, action: 'list' | 'create' | 'switch' | 'delete', name?: string) {
  if (action === 'list') return listBranches(repo);
  const branch = await checkBranchName(repo, name);
  if (action === 'create') gitOutput(await repo.git(['branch', '--', branch]), 'branch');
  else if (action === 'switch') gitOutput(await repo.git(['switch', '--no-guess', '--quiet', branch]), 'switch');
  else gitOutput(await repo.git(['branch', '--delete', '--', branch]), 'branch --delete');
  return { action, branch, ...(await listBranches(repo)) };
}
