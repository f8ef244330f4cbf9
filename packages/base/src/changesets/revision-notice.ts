import { runGit } from './run-git.ts';

const MAX_FILES_NAMED = 20;
const changeKinds: Record<string, string> = { A: 'added', M: 'modified', D: 'deleted', T: 'modified' };

/** The commit checked out where the bundle lies (HEAD), or null outside git, before the first commit, or without git. */
export async function bundleRevision(bundleDir: string): Promise<string | null> {
  try {
    const out = await runGit({ cwd: bundleDir, args: ['rev-parse', '--verify', '-q', 'HEAD^{commit}'] });
    return out.exitCode === 0 ? out.stdout.trim() : null;
  } catch {
    return null;
  }
}

/**
 * What an agent restarted on a new bundle revision is told at its next turn (docs/changesets.md#activation): the
 * revision now active, its subject and changeset, and the bundle's files it changed. git failing leaves out the
 * details, never the notice.
 */
export async function revisionNotice(options: { bundleDir: string; from: string; to: string }): Promise<string> {
  const { bundleDir, from, to } = options;
  const [log, diff] = await Promise.all([
    runGit({
      cwd: bundleDir,
      args: ['log', '-1', '--format=%s%x1f%(trailers:key=Goondan-Changeset,valueonly,separator=%x2c)', to],
    }).catch(() => null),
    runGit({ cwd: bundleDir, args: ['diff', '--name-status', '--no-renames', '--relative', '-z', from, to] }).catch(
      () => null,
    ),
  ]);
  const [subject = '', changeset = ''] = log?.exitCode === 0 ? log.stdout.trim().split('\x1f') : [];
  const parts = diff?.exitCode === 0 ? diff.stdout.split('\0').filter((part) => part !== '') : [];
  const files: string[] = [];
  for (let index = 0; index + 1 < parts.length; index += 2) {
    files.push(`${parts[index + 1]} (${changeKinds[parts[index]!] ?? 'modified'})`);
  }
  const named = files.slice(0, MAX_FILES_NAMED).join(', ');
  const more = files.length > MAX_FILES_NAMED ? ` and ${files.length - MAX_FILES_NAMED} more` : '';
  const what = [subject && `"${subject}"`, changeset.trim() && `changeset ${changeset.trim()}`].filter(Boolean);
  return [
    `[goondan] The bundle you run from changed between your turns: revision ${to.slice(0, 12)}`,
    what.length ? ` (${what.join(', ')})` : '',
    ` is active now, replacing ${from.slice(0, 12)}.`,
    files.length ? ` Changed: ${named}${more}.` : '',
    ' From this turn on you run on it: your instructions and tools may differ from what this conversation shows earlier.',
  ].join('');
}
