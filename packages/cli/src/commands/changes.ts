import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { listChanges, locateBundleRepository, revertChange } from '@goondan/base';
import { findBundleDir } from '@goondan/core';
import { bundleNotFoundAt } from '../bundle-not-found.ts';
import { parseCommandArgs, unknownSubcommand } from '../cli-args.ts';
import { absoluteDocsLinks, commandHelpText, errorPageLink } from '../docs-link.ts';
import { printJson, reserveStdoutForJson } from '../json-stdout.ts';
import { libraryBundleDirs } from '../library-bundles.ts';
import { paint, printable, UsageError, useColor } from '../terminal.ts';
import { wholeNumber } from '../whole-number.ts';

export const changesHelp = `Usage: gdn changes list [--json] [--limit N] [--bundle DIR]
       gdn changes revert REV [--json] [--bundle DIR]

Bundle changesets (docs/changesets.md): agents change the bundle with the swarm-bundle tools; git is the record.

  list         the active revision, the revisions changesets activated (newest first) and the changesets still open
  revert REV   undo an activated revision: a new revision reverting it, validated and activated like a changeset
               (a running 'gdn run --watch' restarts the affected agents after their current turn)

Options:
  --json         print the result as JSON
  --limit N      list at most N activated revisions (default 20)
  --bundle DIR   the bundle directory (default: the current directory or a parent with goondan.yaml)`;

function bundleDirOf(flag: string | undefined): string {
  const dir = flag ? resolve(flag) : findBundleDir(process.cwd());
  if (flag && !existsSync(resolve(dir, 'goondan.yaml'))) throw bundleNotFoundAt(flag);
  return dir;
}

export async function changesCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    command: 'changes',
    argv,
    spec: { json: { type: 'boolean' }, limit: { type: 'string' } },
  });
  const [action, ...rest] = positionals;
  if (values.help || action === undefined) {
    console.log(commandHelpText('changes', changesHelp));
    return action === undefined && !values.help ? 2 : 0;
  }
  if (action !== 'list' && action !== 'revert') throw unknownSubcommand('changes', action, ['list', 'revert']);
  // The arguments are checked before the bundle is looked for: a usage error says so wherever it is run.
  if (action === 'list' && rest.length > 0) throw new UsageError(`unexpected argument '${rest[0]}'`, 'changes');
  if (action === 'revert' && rest.length !== 1)
    throw new UsageError('revert takes one revision: gdn changes revert REV', 'changes');
  const limit = values.limit === undefined ? 20 : wholeNumber(values.limit, 1);
  if (limit === null) throw new UsageError(`--limit must be a positive integer, got '${values.limit}'`, 'changes');
  if (values.json) reserveStdoutForJson();
  const dir = bundleDirOf(values.bundle);
  const repository = await locateBundleRepository(dir);
  const color = useColor(process.stdout);
  if (action === 'list') {
    const overview = await listChanges({ repository, limit });
    if (values.json) {
      printJson(overview);
      return 0;
    }
    // The history is what agents and other people committed (subjects, author names, branch names): shown
    // without its control characters.
    console.log(
      printable(`active  ${overview.active.slice(0, 12)}  (${overview.activeRef.replace('refs/heads/', '')})`),
    );
    console.log(overview.activated.length ? 'activated:' : 'activated: none');
    for (const change of overview.activated) {
      console.log(
        printable(
          `  ${change.revision.slice(0, 12)}  ${change.date}  ${change.changeset}  ${change.author}  ${change.subject}`,
        ),
      );
    }
    console.log(overview.open.length ? 'open:' : 'open: none');
    for (const open of overview.open)
      console.log(printable(`  ${open.changeset}  ${open.tip.slice(0, 12)}  ${open.worktree ?? '(no worktree)'}`));
    return 0;
  }
  // revert
  const outcome = await revertChange({
    repository,
    revision: rest[0]!,
    parentDir: join(dir, '.goondan', 'changesets'),
    libraries: [...libraryBundleDirs],
  });
  if (values.json) printJson(outcome);
  else if (outcome.status === 'ok' && outcome.revision === outcome.previous) {
    console.log(
      `${paint('ok', 'green', color)} nothing to revert: ${outcome.reverted.slice(0, 12)} changes nothing in the active bundle; ${outcome.revision.slice(0, 12)} stays active`,
    );
  } else if (outcome.status === 'ok') {
    console.log(
      `${paint('ok', 'green', color)} reverted ${outcome.reverted.slice(0, 12)}: ${outcome.revision.slice(0, 12)} is active`,
    );
    for (const file of outcome.changed) console.log(printable(`  ${file.change}  ${file.path}`));
  } else {
    console.error(`${paint(outcome.code, 'red', useColor(process.stderr))} ${printable(outcome.message)}`);
    if (outcome.status === 'rejected')
      for (const problem of outcome.problems)
        console.error(printable(`  ${problem.file}:${problem.line}:${problem.column} ${problem.message}`));
    console.error(`  suggestion: ${printable(absoluteDocsLinks(outcome.suggestion))}`);
    console.error(`  help: ${errorPageLink(outcome.code)}`);
  }
  return outcome.status === 'ok' ? 0 : 1;
}
