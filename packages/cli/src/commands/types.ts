import { relative } from 'node:path';
import { parseCommandArgs } from '../cli-args.ts';
import { openBundle } from '../open-bundle.ts';
import { useColor } from '../terminal.ts';
import { TOOL_TYPES_FILE } from '../tool-types/render-tool-types.ts';
import { readToolTypesFile, writeToolTypesFile } from '../tool-types/tool-types-file.ts';
import { printProblems } from './validate.ts';

export const typesHelp = `Usage: gdn types [DIR] [--check] [--bundle DIR]

Writes ${TOOL_TYPES_FILE} beside goondan.yaml: the TypeScript input type of every export of the bundle's Tools,
generated from its \`parameters\` JSON Schema, and a ToolInputs map (Tool → export → input). A handler module types
itself with it, so each schema is written once, in YAML:

  import type { ToolHandlers } from '@goondan/core';
  import type { ToolInputs } from '../../goondan-tools';
  export const handlers: ToolHandlers<ToolInputs['greet']> = { hello: (ctx, input) => ... };

Options:
  --check       write nothing; exit 1 when the file is missing or stale (for CI)
  --bundle DIR  the bundle directory (same as DIR); default: the current directory or a parent with goondan.yaml

Exit status: 0 when written (or up to date), 1 when the bundle is invalid or --check finds it stale, 2 on a usage error.`;

export async function typesCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs({ command: 'types', argv, spec: { check: { type: 'boolean' } } });
  if (values.help) {
    console.log(typesHelp);
    return 0;
  }
  const opened = await openBundle(positionals[0] ?? values.bundle, { checkEntries: false });
  if (!opened.bundle) {
    printProblems(opened.dir, opened.problems, useColor(process.stderr));
    return 1;
  }
  const shown = relative(process.cwd(), `${opened.dir}/${TOOL_TYPES_FILE}`) || TOOL_TYPES_FILE;
  if (values.check) {
    const file = await readToolTypesFile(opened.bundle);
    if (file.current === file.expected) {
      console.log(`${shown} is up to date`);
      return 0;
    }
    console.error(`${shown} is ${file.current === null ? 'missing' : 'stale'}; run 'gdn types' to write it`);
    return 1;
  }
  const wrote = await writeToolTypesFile(opened.bundle);
  console.log(wrote ? `wrote ${shown}` : `${shown} is up to date`);
  return 0;
}
