import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DeclaredResource } from './check-references.ts';
import { problemAt } from './create-problem.ts';
import type { BundleProblem, ExtensionResource } from './resources.ts';

/** An Extension's entry must be a file; it is imported (and its register(api) run) only when an agent starts. */
export function checkExtensionEntries(extensions: readonly DeclaredResource[]): BundleProblem[] {
  const problems: BundleProblem[] = [];
  for (const { resource, document } of extensions) {
    const extension = resource as ExtensionResource;
    if (typeof extension.spec.entry !== 'string') continue; // the shape check reported it
    const file = resolve(extension.location.baseDir, extension.spec.entry);
    let isFile = false;
    try {
      isFile = statSync(file).isFile();
    } catch {
      isFile = false;
    }
    if (!isFile) {
      problems.push(
        problemAt(document, {
          code: 'E_EXTENSION_ENTRY_NOT_FOUND',
          path: ['spec', 'entry'],
          message: `Extension '${extension.metadata.name}': entry '${extension.spec.entry}' is not a file (resolved beside the YAML file that declares it).`,
        }),
      );
    }
  }
  return problems;
}
