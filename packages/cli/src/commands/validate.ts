import type { Bundle, BundleProblem } from '@goondan/core';
import { GoondanError, toToolError } from '@goondan/core/session';
import { bundleProblemsText, printBundleWarnings } from '../bundle-problems-text.ts';
import { parseCommandArgs } from '../cli-args.ts';
import { noteFailure, printJson, reserveStdoutForJson } from '../json-stdout.ts';
import { openBundle } from '../open-bundle.ts';
import { paint, UsageError, useColor } from '../terminal.ts';
import { TOOL_TYPES_FILE } from '../tool-types/render-tool-types.ts';
import { readToolTypesFile } from '../tool-types/tool-types-file.ts';

export const validateHelp = `Usage: gdn validate [DIR] [--json | --format text|json] [--bundle DIR]

Checks a bundle before anything runs: YAML, resource shapes, names, references, Tool entries and handlers,
parameter schemas. Every problem is reported at once, with file:line:column, field path and a suggestion.
Warnings (fields this runtime ignores, such as a misspelt one: E_FIELD_IGNORED) are shown too; they do not make
the bundle invalid.

Options:
  --json              print {"valid": bool, "errors": [{code, message, file, line, column, path, suggestion,
                      helpUrl}], "warnings": [the same]} instead of each offending line with a caret
  --format text|json  the same choice spelt the older way (--format json is --json)
  --bundle DIR        the bundle directory (same as DIR); default: the current directory or a parent with goondan.yaml

Exit status: 0 when valid, 1 when not, 2 on a usage error.`;

export async function validateCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    command: 'validate',
    argv,
    spec: { format: { type: 'string' }, json: { type: 'boolean' } },
  });
  if (values.help) {
    console.log(validateHelp);
    return 0;
  }
  const format = values.json ? 'json' : (values.format ?? 'text');
  if (format !== 'text' && format !== 'json')
    throw new UsageError(`--format must be text or json, not '${format}'`, 'validate');
  if (positionals.length > 1)
    throw new UsageError(`expected at most one directory, got ${positionals.length}`, 'validate');
  if (format === 'json') reserveStdoutForJson();
  let opened: Awaited<ReturnType<typeof openBundle>>;
  try {
    // Entry modules are imported only in a subprocess: whatever their top level does cannot hang or end validate.
    opened = await openBundle(positionals[0] ?? values.bundle, { importHandlers: false, quiet: true });
  } catch (thrown) {
    // Scripts reading --format json get the promised shape even when there is no bundle to read.
    if (format !== 'json' || !(thrown instanceof GoondanError)) throw thrown;
    const error = toToolError(thrown);
    const problem = {
      code: thrown.code,
      message: thrown.message,
      file: 'goondan.yaml',
      line: 0,
      column: 0,
      path: '',
      suggestion: error.suggestion,
      helpUrl: error.helpUrl,
    };
    printJson({ valid: false, errors: [problem], warnings: [] });
    return 1;
  }
  const valid = opened.problems.length === 0;
  if (format === 'json') {
    printJson({ valid, errors: opened.problems, warnings: opened.warnings });
    return valid ? 0 : 1;
  }
  const color = useColor();
  printBundleWarnings(opened.dir, opened.warnings);
  if (valid) {
    const counts = countKinds(opened.bundle ? [...opened.bundle.resources.values()].filter((r) => !r.library) : []);
    const warned =
      opened.warnings.length === 0
        ? ''
        : `, ${opened.warnings.length} warning${opened.warnings.length === 1 ? '' : 's'}`;
    console.log(`${paint('✓', 'green', color)} ${opened.dir}: valid (${counts})${warned}`);
    if (opened.bundle) await warnStaleToolTypes(opened.bundle);
    return 0;
  }
  printProblems(opened.dir, opened.problems, color);
  return 1;
}

/** A bundle that uses goondan-tools.d.ts (gdn types) is told when its schemas have moved on from it. */
async function warnStaleToolTypes(bundle: Bundle): Promise<void> {
  const file = await readToolTypesFile(bundle);
  if (file.current === null || file.current === file.expected) return;
  console.error(`warning: ${TOOL_TYPES_FILE} is stale (a Tool's parameters changed); run 'gdn types' to update it`);
}

/** Prints problems with source lines and carets; shared by every command that needs a valid bundle. */
export function printProblems(dir: string, problems: BundleProblem[], color: boolean): void {
  // The problems as `validate --json` lists them, for a command asked for JSON (printFailureJson).
  noteFailure({ errors: problems });
  console.error(bundleProblemsText(dir, problems, { color }));
  console.error(paint(`✗ ${problemCount(problems)} in ${dir}`, 'red', color));
}

function problemCount(problems: BundleProblem[]): string {
  return `${problems.length} problem${problems.length === 1 ? '' : 's'}`;
}

function countKinds(resources: { kind: string }[]): string {
  const counts = new Map<string, number>();
  for (const resource of resources) counts.set(resource.kind, (counts.get(resource.kind) ?? 0) + 1);
  return [...counts].map(([kind, count]) => `${count} ${kind}${count === 1 ? '' : 's'}`).join(', ') || 'no resources';
}
