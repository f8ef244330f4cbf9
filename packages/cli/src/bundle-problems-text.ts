import { resolve } from 'node:path';
import type { BundleProblem } from '@goondan/core';
import { formatProblems, readSourceText } from '@goondan/core/session';
import { absoluteDocsLinks, errorPageLink } from './docs-link.ts';
import { printable, useColor } from './terminal.ts';

/**
 * A bundle's problems (or warnings) for a person: each with its source line and caret, the help page and any docs
 * page a suggestion names as absolute links (JSON keeps helpUrl as it is). What the bundle wrote (a field's name in
 * a message, the source line) reaches the terminal without its control characters: an escape sequence in a YAML key
 * would retitle or clear the screen.
 */
export function bundleProblemsText(
  dir: string,
  problems: readonly BundleProblem[],
  options: { color: boolean; warning?: boolean },
): string {
  // A file's name is the bundle's too (a library's path, a file it names): shown printable, read by its own name.
  const files = new Map(problems.map((problem) => [printable(problem.file), problem.file]));
  const readFile = (file: string) => {
    const text = readSourceText(resolve(dir, files.get(file) ?? file));
    return typeof text === 'string' ? printable(text) : text;
  };
  const shown = problems.map((problem) => ({
    ...problem,
    file: printable(problem.file),
    message: printable(problem.message),
    suggestion: printable(absoluteDocsLinks(problem.suggestion)),
  }));
  return formatProblems(shown, { ...options, readFile, helpLink: errorPageLink });
}

/**
 * Prints a bundle's warnings (E_FIELD_IGNORED: a field the runtime ignores, most often misspelt) on standard error
 * like problems, marked as warnings: the command goes on.
 */
export function printBundleWarnings(dir: string, warnings: readonly BundleProblem[]): void {
  if (warnings.length === 0) return;
  console.error(bundleProblemsText(dir, warnings, { color: useColor(process.stderr), warning: true }));
}
