import { lstatSync, readlinkSync, statSync } from 'node:fs';
import { link, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { GoondanError, isProcessAlive, type Resource } from '@goondan/core';
import { shellWord } from '@goondan/core/shell-word';
import { parseCommandArgs } from '../cli-args.ts';
import { type ModelChoice, modelChoices } from '../init/model-choices.ts';
import { scaffoldFiles } from '../init/scaffold-files.ts';
import { UsageError } from '../terminal.ts';
import { renderToolTypes, TOOL_TYPES_FILE } from '../tool-types/render-tool-types.ts';

export const initHelp = `Usage: gdn init [DIR] [--model ${modelChoices.join('|')}]

Creates a bundle in DIR (default: the current directory): goondan.yaml with one Tool, one Agent and a Model,
the Tool's handler typed from its schema (tools/greet/index.ts), ${TOOL_TYPES_FILE} (gdn types), tsconfig.json,
package.json (@goondan/cli and @goondan/core), .gitignore and a README with the next steps. Files that exist are
kept (${TOOL_TYPES_FILE} too: run gdn types to rewrite it); a folder that already has goondan.yaml is refused.

Options:
  --model NAME  the Model to start with: scripted (default; replays prepared steps, needs no key), openai,
                anthropic, google (API key from the environment), ollama (a local server)

Exit status: 0 when created, 1 when DIR already holds a bundle, 2 on a usage error.`;

/** Names npm refuses for a package although they match its pattern. */
const refusedPackageNames = new Set(['node_modules', 'favicon.ico', ...builtinModules]);

/**
 * An npm package name from a folder name: lowercase, with anything else than [a-z0-9._-] turned into '-', no
 * leading dot or underscore, at most 214 characters, and not a name npm refuses (node_modules, favicon.ico, a
 * Node core module such as http): those get '-bundle' after them.
 */
export function packageName(dir: string): string {
  const name = basename(dir)
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+/, '')
    .slice(0, 200)
    .replace(/-+$/, '');
  if (!name) return 'goondan-bundle';
  return refusedPackageNames.has(name) ? `${name}-bundle` : name;
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
  if (lstatSync(dir, { throwIfNoEntry: false })?.isSymbolicLink() && !statSync(dir, { throwIfNoEntry: false })) {
    throw new GoondanError(
      'E_INIT_REFUSED',
      `${dir} is a symbolic link to ${readlinkSync(dir)}, which does not exist; nothing was written.`,
      { suggestion: 'Create the folder it points to, remove the link, or run gdn init with another name.' },
    );
  }
  if (lstatSync(join(dir, 'goondan.yaml'), { throwIfNoEntry: false })) {
    throw new GoondanError('E_INIT_REFUSED', `${dir} already holds a bundle (goondan.yaml); nothing was written.`, {
      suggestion: 'Run gdn init in another folder, or edit that bundle (gdn validate checks it).',
    });
  }
  const files = scaffoldFiles({ name: packageName(dir), model });
  refuseLinkedFolders(dir, Object.keys(files));
  const { 'goondan.yaml': bundleYaml, ...rest } = files;
  const written: string[] = [];
  /** Lines for the files that were there: `package.json (exists, kept)`. */
  const kept: string[] = [];
  for (const [file, text] of Object.entries(rest)) {
    const path = join(dir, file);
    await mkdir(dirname(path), { recursive: true });
    if (await writeNewFile(path, text)) written.push(file);
    else kept.push(`${file} (exists, kept)`);
  }
  // goondan-tools.d.ts comes from the bundle's schemas, rendered from the text, so it is written before goondan.yaml,
  // which marks the folder as a bundle and so comes last (a killed init leaves none).
  const types = scaffoldToolTypes(bundleYaml ?? '');
  if (await writeNewFile(join(dir, TOOL_TYPES_FILE), types)) {
    written.push(TOOL_TYPES_FILE);
  } else {
    const current = await readFile(join(dir, TOOL_TYPES_FILE), 'utf8').catch(() => null);
    const stale = current === types ? '' : `; not this bundle's types: run 'npx gdn types'`;
    kept.push(`${TOOL_TYPES_FILE} (exists, kept${stale})`);
  }
  if (!(await writeNewFile(join(dir, 'goondan.yaml'), bundleYaml ?? ''))) {
    throw new GoondanError('E_INIT_REFUSED', `${dir} got a goondan.yaml while gdn init ran; it was kept.`);
  }
  written.splice(written.length - (written.at(-1) === TOOL_TYPES_FILE ? 1 : 0), 0, 'goondan.yaml');
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
 * The folders between DIR and its scaffold files (tools, tools/greet) that are symbolic links: writing through one
 * would put files outside DIR, so init refuses before it writes anything.
 */
function refuseLinkedFolders(dir: string, files: string[]): void {
  const folders = new Set(
    files.flatMap((file) =>
      file
        .split('/')
        .slice(0, -1)
        .map((_, i, parts) => parts.slice(0, i + 1).join('/')),
    ),
  );
  for (const folder of folders) {
    if (lstatSync(join(dir, folder), { throwIfNoEntry: false })?.isSymbolicLink()) {
      throw new GoondanError(
        'E_INIT_REFUSED',
        `${join(dir, folder)} is a symbolic link: gdn init writes only inside ${dir}, so it wrote nothing.`,
        { suggestion: `Replace the link ${folder}${sep} with a real folder, or run gdn init in another folder.` },
      );
    }
  }
}

/**
 * What gdn types writes for the scaffold's goondan.yaml, from its text: no file is written for it (the scaffold is
 * this command's own, checked to load by its tests), so goondan-tools.d.ts can be written before goondan.yaml.
 */
function scaffoldToolTypes(yaml: string): string {
  const documents = Bun.YAML.parse(yaml) as Resource[];
  return renderToolTypes(documents);
}

/** `.package.json.gdn-init-<pid>.tmp`: the scratch copy of a file being written. */
const scratchName = /^\.(.+)\.gdn-init-(\d+)\.tmp$/;

/**
 * Writes a file that does not exist yet; false when something is already there, kept as it is. The text goes to a
 * scratch file beside it first, which is then linked in place (link(2) never replaces anything): a file of the
 * scaffold is there whole or not at all, so an init killed midway and run again never keeps half a package.json
 * as the user's. A symbolic link in its place, even one to a file that does not exist, is never written through:
 * the scaffold lands in DIR and nowhere else. Scratch files an init killed before left there are removed.
 */
async function writeNewFile(path: string, text: string): Promise<boolean> {
  const folder = dirname(path);
  for (const entry of await readdir(folder)) {
    const match = scratchName.exec(entry);
    if (match?.[1] === basename(path) && !isProcessAlive(Number(match[2])))
      await rm(join(folder, entry), { force: true });
  }
  if (lstatSync(path, { throwIfNoEntry: false })) return false;
  const scratch = join(folder, `.${basename(path)}.gdn-init-${process.pid}.tmp`);
  await rm(scratch, { force: true });
  await writeFile(scratch, text, { flag: 'wx' });
  try {
    await link(scratch, path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    // A file system without hard links: written in place, still exclusively.
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP') return writeExclusively(path, text);
    throw error;
  } finally {
    await rm(scratch, { force: true });
  }
}

async function writeExclusively(path: string, text: string): Promise<boolean> {
  try {
    await writeFile(path, text, { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}
