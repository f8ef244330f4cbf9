import type { GitRepository } from './git-repository.ts';
import { gitOutput } from './git-repository.ts';

const MAX_STATUS_ENTRIES = 500;
export const DEFAULT_LOG_COUNT = 10;
export const MAX_LOG_COUNT = 100;
/** Characters of a diff shown to the model; the rest is counted, not shown. */
export const MAX_DIFF_CHARS = 60_000;

const codes: Record<string, string> = {
  M: 'modified',
  A: 'added',
  D: 'deleted',
  R: 'renamed',
  C: 'copied',
  T: 'type changed',
  U: 'unmerged',
  '?': 'untracked',
  '!': 'ignored',
};

/** `## main...origin/main [ahead 1, behind 2]` → its parts. */
function branchLine(line: string) {
  const text = line.replace(/^## /, '');
  const initial = /^No commits yet on (.+)$/.exec(text);
  if (initial) return { branch: initial[1] ?? null, upstream: null, ahead: 0, behind: 0 };
  if (text.startsWith('HEAD (no branch)')) return { branch: null, upstream: null, ahead: 0, behind: 0 };
  const [names = '', counts = ''] = text.split(' [');
  const [branch = '', upstream] = names.split('...');
  return {
    branch,
    upstream: upstream ?? null,
    ahead: Number(/ahead (\d+)/.exec(counts)?.[1] ?? 0),
    behind: Number(/behind (\d+)/.exec(counts)?.[1] ?? 0),
  };
}

/** git__status: the branch, its upstream distance, and each changed path with its staged and unstaged state. */
export async function gitStatus(repo: GitRepository) {
  const args = ['status', '--porcelain=v1', '--branch', '-z', '--untracked-files=normal'];
  const run = await repo.git(repo.pathspec ? [...args, '--', repo.pathspec] : args);
  const fields = gitOutput(run, 'status').split('\0');
  const head = branchLine(fields.shift() ?? '');
  const changes: { path: string; from?: string; staged: string | null; unstaged: string | null }[] = [];
  let total = 0;
  for (let index = 0; index < fields.length; index += 1) {
    const entry = fields[index] ?? '';
    if (entry.length < 4) continue;
    const x = entry[0] ?? ' ';
    const y = entry[1] ?? ' ';
    const change: (typeof changes)[number] = {
      path: entry.slice(3),
      staged: x === ' ' || x === '?' ? null : (codes[x] ?? x),
      unstaged: y === ' ' ? null : (codes[y] ?? y),
    };
    if (x === 'R' || x === 'C') {
      change.from = fields[index + 1];
      index += 1;
    }
    total += 1;
    if (changes.length < MAX_STATUS_ENTRIES) changes.push(change);
  }
  return {
    repository: repo.name,
    ...head,
    clean: total === 0,
    changes,
    ...(total > changes.length ? { more: total - changes.length } : {}),
    ...(run.truncated ? { truncated: true } : {}),
  };
}

/** git__log: the latest `count` commits (of the path, when one is given), newest first. */
export async function gitLog(repo: GitRepository, count = DEFAULT_LOG_COUNT) {
  const n = Math.min(Math.max(1, Math.floor(count)), MAX_LOG_COUNT);
  const args = ['log', `-n${n}`, '--no-show-signature', '--no-color', '--format=%H%x1f%an%x1f%ae%x1f%aI%x1f%s%x1e'];
  const run = await repo.git(repo.pathspec ? [...args, '--', repo.pathspec] : args);
  if (run.exitCode !== 0 && /does not have any commits|bad default revision/.test(run.stderr)) {
    return { repository: repo.name, commits: [] };
  }
  const commits = gitOutput(run, 'log')
    .split('\x1e')
    .map((record) => record.replace(/^\n/, ''))
    .filter((record) => record.includes('\x1f'))
    .map((record) => {
      const [hash = '', author = '', email = '', date = '', subject = ''] = record.split('\x1f');
      return { hash, author, email, date, subject };
    });
  return { repository: repo.name, commits };
}

/** git__diff: the patch of unstaged (or, `staged`, staged) changes, cut at MAX_DIFF_CHARS, with per-file counts. */
export async function gitDiff(repo: GitRepository, staged: boolean) {
  const base = ['diff', '--no-ext-diff', '--no-textconv', '--no-color', ...(staged ? ['--cached'] : [])];
  const spec = repo.pathspec ? ['--', repo.pathspec] : [];
  const numstat = gitOutput(await repo.git([...base, '--numstat', '-z', ...spec]), 'diff');
  const files = numstat
    .split('\0')
    .filter((line) => /^(\d+|-)\t(\d+|-)\t/.test(line))
    .slice(0, MAX_STATUS_ENTRIES)
    .map((line) => {
      const [added = '', removed = '', path = ''] = line.split('\t');
      return { path, added: added === '-' ? null : Number(added), removed: removed === '-' ? null : Number(removed) };
    });
  const run = await repo.git([...base, ...spec], { maxBytes: MAX_DIFF_CHARS * 4 });
  const patch = gitOutput(run, 'diff');
  const cut = patch.length > MAX_DIFF_CHARS || run.truncated;
  return {
    repository: repo.name,
    staged,
    files,
    patch: cut ? `${patch.slice(0, MAX_DIFF_CHARS)}\n… (diff cut at ${MAX_DIFF_CHARS} characters)` : patch,
    ...(cut ? { truncated: true } : {}),
  };
}
