import { resolve } from 'node:path';
import type { Bundle, BundleProblem, ToolHandler } from '@goondan/core';
import { findBundleDir, loadBundle } from '@goondan/core/session';
import { bundleNotFoundAt } from './bundle-not-found.ts';
import { printBundleWarnings } from './bundle-problems-text.ts';
import { finishInterruptedActivationAt } from './finish-activation-at-start.ts';
import { libraryBundleDirs } from './library-bundles.ts';
import { printable } from './terminal.ts';

export interface OpenedBundle {
  dir: string;
  bundle: Bundle | null;
  problems: BundleProblem[];
  handlers: Map<string, Record<string, ToolHandler>>;
  /** Fields of the bundle's own resources the runtime ignores (E_FIELD_IGNORED); printed unless `quiet`. */
  warnings: BundleProblem[];
}

/**
 * Finds the bundle (--bundle DIR, else the current directory or a parent) and loads it with the base tools. The
 * bundle's own entry modules are first probed in a subprocess; `importHandlers: false` (validate) stops there, and
 * `checkEntries: false` (types) does not touch them at all.
 */
export async function openBundle(
  bundleFlag: string | undefined,
  options: { importHandlers?: boolean; checkEntries?: boolean; quiet?: boolean } = {},
): Promise<OpenedBundle> {
  const dir = bundleFlag ? resolve(bundleFlag) : findBundleDir(process.cwd());
  if (bundleFlag && !(await Bun.file(resolve(dir, 'goondan.yaml')).exists())) {
    throw bundleNotFoundAt(bundleFlag);
  }
  await finishInterruptedActivationAt(dir, (line) => process.stderr.write(`${printable(line)}\n`));
  const { quiet, ...loadOptions } = options;
  const loaded = await loadBundle({ dir, libraries: [...libraryBundleDirs], ...loadOptions });
  // A misspelt field loads (and is ignored): every command says so before it starts, not only gdn validate.
  if (!quiet) printBundleWarnings(dir, loaded.warnings);
  return { dir, ...loaded };
}
