import { realpath } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { findBundleDir, readUtf8 } from '@goondan/core';
import { parseCommandArgs } from '../cli-args.ts';
import { docsLink } from '../docs-link.ts';
import { printJson, reserveStdoutForJson } from '../json-stdout.ts';
import { readBundleBytes, replaceFileAtomically } from '../migrate/bundle-file-io.ts';
import { type MigrationNote, type MigrationResult, migrateBundleText } from '../migrate/migrate-bundle-text.ts';
import { printable, UsageError } from '../terminal.ts';

export const migrateHelp = `Usage: gdn migrate [--bundle DIR] [--dry-run] [--json]

Rewrites, in place, the parts of a goondan.yaml written for older Goondan runtimes that do not load as they are:
other apiVersions, a Tool's v1 runtime field, dotted or camelCase export names, references written as bare
names. Only the values it changes and the keys it removes differ: comments, layout, a BOM and the line endings
stay as they were, and a file that is not UTF-8 is refused, not rewritten. Every change is listed, and so is
every part it could not convert (E_MIGRATE_UNCONVERTED), to edit by hand. Shapes that load as they are (a
Package, package refs, Swarm agents as { ref }, single-function Tools) are left alone. See docs/migrating.md.

Options:
  --dry-run     list the changes without writing the file (the same list a run writes)
  --json        print {"file", "written", "changes": [...], "unconverted": [...]} on standard output
  --bundle DIR  the bundle directory (default: the current directory or a parent with goondan.yaml)

Exit status: 0 when everything was converted (or nothing needed to be), 1 when some part was not converted,
2 on a usage error.`;

/** A file that is not UTF-8 is refused: reading it would replace the byte, and writing it back would keep that. */
function migrateBytes(bytes: Uint8Array): MigrationResult {
  const reading = readUtf8(bytes);
  if (reading.type === 'text') return migrateBundleText(reading.text);
  const byte = `0x${reading.byte.toString(16).toUpperCase().padStart(2, '0')}`;
  const message = `byte ${byte} at offset ${reading.offset} is not UTF-8; save goondan.yaml as UTF-8 first (nothing was written)`;
  return { text: '', changes: [], unconverted: [{ line: reading.line, resource: '', path: '', message }] };
}

/** A note quotes the bundle's YAML (someone else's, maybe): shown without its control characters. */
function line(note: MigrationNote, prefix: string): string {
  return printable(`goondan.yaml:${note.line}  ${prefix}${note.resource ? `${note.resource}: ` : ''}${note.message}`);
}

/**
 * Where goondan.yaml leads when it is a symbolic link to a file outside the bundle folder, else null. Such a link
 * (a bundle from someone else may hold one) is never written through: migrate rewrites the bundle, not a file
 * elsewhere on the machine. A link to a file inside the bundle is followed as before.
 */
async function linkedOutside(dir: string, file: string): Promise<string | null> {
  const [target, root] = await Promise.all([realpath(file), realpath(dir)]);
  const inside = relative(root, target);
  return inside === '..' || inside.startsWith(`..${sep}`) || resolve(root, inside) !== target ? target : null;
}

export async function migrateCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    command: 'migrate',
    argv,
    spec: { 'dry-run': { type: 'boolean' }, json: { type: 'boolean' } },
  });
  if (values.help) {
    console.log(migrateHelp);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`, 'migrate');
  if (values.json) reserveStdoutForJson();
  const dir = values.bundle ? resolve(values.bundle) : findBundleDir(process.cwd());
  const file = join(dir, 'goondan.yaml');
  const bytes = await readBundleBytes(file);
  const result = migrateBytes(bytes);
  const outside = result.changes.length > 0 ? await linkedOutside(dir, file) : null;
  if (outside) {
    const message = `goondan.yaml is a symbolic link to ${outside}, outside the bundle; nothing was written there. Replace the link with a copy of that file and run gdn migrate again`;
    result.unconverted.unshift({ line: 1, resource: '', path: '', message });
  }
  const write = result.changes.length > 0 && !values['dry-run'] && !outside;
  if (write) await replaceFileAtomically(file, result.text);
  if (values.json) {
    printJson({ file, written: write, changes: result.changes, unconverted: result.unconverted });
  } else {
    for (const note of result.changes) console.log(line(note, ''));
    for (const note of result.unconverted) console.log(line(note, 'E_MIGRATE_UNCONVERTED  '));
    const verb = write ? 'changed' : 'would change';
    const summary =
      result.changes.length === 0
        ? `Nothing to rewrite in ${file}.`
        : `${verb} ${result.changes.length} part(s) of ${file}${write ? '' : outside ? ' (not written)' : ' (dry run: not written)'}.`;
    console.error(summary);
    if (result.unconverted.length > 0) {
      console.error(
        `${result.unconverted.length} part(s) not converted: edit them by hand (${docsLink('migrating.md')}).`,
      );
    }
    if (write) console.error('Next: gdn validate');
  }
  return result.unconverted.length > 0 ? 1 : 0;
}
