import { lstatSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { parseCommandArgs } from '../cli-args.ts';
import { type ModelChoice, modelChoices } from '../init/model-choices.ts';
import { scaffoldFiles } from '../init/scaffold-files.ts';
import { openBundle } from '../open-bundle.ts';
import { shellWord } from '../shell-word.ts';
import { UsageError, useColor } from '../terminal.ts';
import { TOOL_TYPES_FILE } from '../tool-types/render-tool-types.ts';
import { readToolTypesFile } from '../tool-types/tool-types-file.ts';
import { printProblems } from './validate.ts';

export const initHelp = `Usage: gdn init [DIR] [--model ${modelChoices.join('|')}]

Creates a bundle in DIR (default: the current directory): goondan.yaml with one Tool, one Agent and a Model,
the Tool's handler typed from its schema (tools/greet/index.ts), ${TOOL_TYPES_FILE} (gdn types), tsconfig.json,
package.json (@goondan/cli and @goondan/core), .gitignore and a README with the next steps. Files that exist are
kept (${TOOL_TYPES_FILE} too: run gdn types to rewrite it); a folder that already has goondan.yaml is refused.

Options:
  --model NAME  the Model to start with: scripted (default; replays prepared steps, needs no key), openai,
                anthropic, google (API key from the environment), ollama (a local server)

Exit status: 0 when created, 1 when DIR already holds a bundle, 2 on a usage error.`;

/** An npm package name from a folder name: lowercase, with anything else than [a-z0-9._-] turned into '-'. */
function packageName(dir: string): string {
  const name = basename(dir)
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+|-+$/g, '');
  return name || 'goondan-bundle';
}

export async function initCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs({ command: 'init', argv, spec: { model: { type: 'string' } } });
  if (values.help) {
    console.log(initHelp);
    return 0;
  }
  if (positionals.length > 1) throw new UsageError(`expected at most one directory, got ${positionals.length}`, 'init');
  const model = (values.model ?? 'scripted') as ModelChoice;
  if (!modelChoices.includes(model)) {
    throw new UsageError(`--model must be one of ${modelChoices.join(', ')}, not '${values.model}'`, 'init');
  }
  if (
    positionals[0] !== undefined &&
    values.bundle !== undefined &&
    resolve(positionals[0]) !== resolve(values.bundle)
  ) {
    throw new UsageError(
      `give the directory once: DIR '${positionals[0]}' and --bundle '${values.bundle}' differ`,
      'init',
    );
  }
  const dir = resolve(positionals[0] ?? values.bundle ?? '.');
  if (lstatSync(join(dir, 'goondan.yaml'), { throwIfNoEntry: false })) {
    console.error(`gdn init: ${dir} already holds a bundle (goondan.yaml); nothing was written.`);
    return 1;
  }
  const written: string[] = [];
  /** Lines for the files that were there: `package.json (exists, kept)`. */
  const kept: string[] = [];
  for (const [file, text] of Object.entries(scaffoldFiles({ name: packageName(dir), model }))) {
    const path = join(dir, file);
    await mkdir(dirname(path), { recursive: true });
    if (await writeNewFile(path, text)) written.push(file);
    else kept.push(`${file} (exists, kept)`);
  }
  const opened = await openBundle(dir, { checkEntries: false });
  if (!opened.bundle) {
    printProblems(opened.dir, opened.problems, useColor(process.stderr));
    return 1;
  }
  // Like every other file, an existing goondan-tools.d.ts is the user's: kept, and said when it is not current.
  const types = await readToolTypesFile(opened.bundle);
  if (await writeNewFile(types.path, types.expected)) {
    written.push(TOOL_TYPES_FILE);
  } else {
    const stale = types.current === types.expected ? '' : `; not this bundle's types: run 'npx gdn types'`;
    kept.push(`${TOOL_TYPES_FILE} (exists, kept${stale})`);
  }
  const near = relative(process.cwd(), dir);
  const shown = near.startsWith('..') ? dir : near || '.';
  console.log(`Created a bundle in ${shown} (Model: ${model}):`);
  for (const file of written) console.log(`  ${file}`);
  for (const line of kept) console.log(`  ${line}`);
  // Files of an existing project were kept: what they need for gdn, since the scaffold's own were not written.
  if (kept.some((line) => line.startsWith('package.json'))) {
    console.log(
      '  → add "@goondan/cli" and "@goondan/core" to its dependencies (and the scripts of README.md, such as typecheck)',
    );
  }
  if (kept.some((line) => line.startsWith('.gitignore'))) {
    console.log('  → add .goondan/ to it: conversations, audit logs and traces live there');
  }
  const cd = shown === '.' ? '' : `cd ${shellWord(shown)} && `;
  console.log(`\nNext: ${cd}npm install && npx gdn validate && npx gdn run --input "Please greet Ada"`);
  console.log('See README.md there for more.');
  return 0;
}

/**
 * Writes a file that does not exist yet; false when something is already there, kept as it is. Created exclusively
 * (O_EXCL), so a symbolic link in its place, even one to a file that does not exist, is never written through: the
 * scaffold lands in DIR and nowhere else.
 */
async function writeNewFile(path: string, text: string): Promise<boolean> {
  try {
    await writeFile(path, text, { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}
