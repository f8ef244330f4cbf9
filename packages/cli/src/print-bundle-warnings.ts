import { resolve } from 'node:path';
import type { BundleProblem } from '@goondan/core';
import { formatProblems, readSourceText } from '@goondan/core/session';
import { absoluteDocsLinks, errorPageLink } from './docs-link.ts';
import { useColor } from './terminal.ts';

/**
 * Prints a bundle's warnings (E_FIELD_IGNORED: a field the runtime ignores, most often misspelt) on standard error
 * like problems, marked as warnings: the command goes on.
 */
export function printBundleWarnings(dir: string, warnings: readonly BundleProblem[]): void {
  if (warnings.length === 0) return;
  const readFile = (file: string) => readSourceText(resolve(dir, file));
  const shown = warnings.map((warning) => ({ ...warning, suggestion: absoluteDocsLinks(warning.suggestion) }));
  const color = useColor(process.stderr);
  console.error(formatProblems(shown, { color, readFile, helpLink: errorPageLink, warning: true }));
}
