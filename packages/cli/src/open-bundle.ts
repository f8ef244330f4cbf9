import { resolve } from 'node:path';
import type { Bundle, BundleProblem, ToolHandler } from '@goondan/core';
import { findBundleDir, GoondanError, loadBundle } from '@goondan/core/session';
import { finishInterruptedActivationAt } from './finish-activation-at-start.ts';
import { libraryBundleDirs } from './library-bundles.ts';

export interface OpenedBundle {
  dir: string;
  bundle: Bundle | null;
  problems: BundleProblem[];
  handlers: Map<string, Record<string, ToolHandler>>;
}

/**
 * Finds the bundle (--bundle DIR, else the current directory or a parent) and loads it with the base tools. The
 * bundle's own entry modules are first probed in a subprocess; `importHandlers: false` (validate) stops there, and
 * `checkEntries: false` (types) does not touch them at all.
 */
export async function openBundle(
  bundleFlag: string | undefined,
  options: { importHandlers?: boolean; checkEntries?: boolean } = {},
): Promise<OpenedBundle> {
  const dir = bundleFlag ? resolve(bundleFlag) : findBundleDir(process.cwd());
  if (bundleFlag && !(await Bun.file(resolve(dir, 'goondan.yaml')).exists())) {
    throw new GoondanError('E_BUNDLE_NOT_FOUND', `No goondan.yaml in ${bundleFlag}.`);
  }
  await finishInterruptedActivationAt(dir, (line) => process.stderr.write(`${line}\n`));
  const loaded = await loadBundle({ dir, libraries: [...libraryBundleDirs], ...options });
  return { dir, ...loaded };
}
