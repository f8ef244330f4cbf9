import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DeclaredResource } from './check-references.ts';
import { problemAt } from './create-problem.ts';
import type { EntryProbeReport } from './probe-entry-modules.ts';
import type { BundleProblem, ExtensionResource } from './resources.ts';

/** The absolute entry file of an Extension, or null when its entry is not a string (the shape check reported it). */
export function extensionEntryFile(extension: ExtensionResource): string | null {
  return typeof extension.spec.entry === 'string' ? resolve(extension.location.baseDir, extension.spec.entry) : null;
}

/**
 * An Extension's entry must be a file. Its register(api) runs only when an agent starts, but a probed entry
 * (probeEntryModules, in a subprocess) must also import and export a register function.
 */
export function checkExtensionEntries(
  extensions: readonly DeclaredResource[],
  probes: ReadonlyMap<string, EntryProbeReport> = new Map(),
): BundleProblem[] {
  const problems: BundleProblem[] = [];
  for (const { resource, document } of extensions) {
    const extension = resource as ExtensionResource;
    const file = extensionEntryFile(extension);
    if (file === null) continue;
    const report = (message: string, code: 'E_EXTENSION_ENTRY_NOT_FOUND' | 'E_EXTENSION_LOAD') =>
      problems.push(problemAt(document, { code, path: ['spec', 'entry'], message }));
    let isFile = false;
    try {
      isFile = statSync(file).isFile();
    } catch {
      isFile = false;
    }
    if (!isFile) {
      report(
        `Extension '${extension.metadata.name}': entry '${extension.spec.entry}' is not a file (resolved beside the YAML file that declares it).`,
        'E_EXTENSION_ENTRY_NOT_FOUND',
      );
      continue;
    }
    const probe = probes.get(file);
    if (probe?.type === 'failed') {
      report(`Extension '${extension.metadata.name}' failed to load: ${probe.reason}`, 'E_EXTENSION_LOAD');
    } else if (probe && probe.exports.register !== 'function') {
      const found = Object.keys(probe.exports).join(', ') || 'none';
      report(
        `Extension '${extension.metadata.name}': its entry ${extension.spec.entry} does not export a register(api) function; its exports: ${found}`,
        'E_EXTENSION_LOAD',
      );
    }
  }
  return problems;
}
