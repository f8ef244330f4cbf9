import { dirname, join, relative, sep } from 'node:path';
import type { DeclaredResource } from './check-references.ts';
import { createProblem, problemAt } from './create-problem.ts';
import { importErrorLocation } from './import-error-location.ts';
import type { BundleProblem } from './resources.ts';

/**
 * E_TOOL_ENTRY_LOAD for a Tool whose entry module did not import. When the error tells where (a syntax error, an
 * unresolvable import, a throw at the module's top level inside the bundle), the problem points at that line of
 * the module, so the code frame shows it, and names the Tool declaration; otherwise it points at spec.entry.
 */
export function entryLoadProblem(options: {
  declared: DeclaredResource;
  thrown: unknown;
  message: string;
}): BundleProblem {
  const { declared, thrown } = options;
  const { document, resource } = declared;
  const entry = String((resource.spec as { entry?: unknown }).entry);
  const path = ['spec', 'entry'];
  const declaredAt = problemAt(document, { code: 'E_TOOL_ENTRY_LOAD', path, message: '' });
  const where = importErrorLocation(thrown, resource.location.baseDir);
  if (!where) {
    const message = `Importing spec.entry "${entry}" failed: ${options.message}`;
    return { ...declaredAt, message };
  }
  // Files in problems are relative to the bundle root, like the goondan.yaml that declares the Tool.
  const fromDeclaring = relative(resource.location.baseDir, where.file).split(sep).join('/');
  const file = join(dirname(document.file), fromDeclaring).split(sep).join('/');
  const tool = `Tool '${resource.metadata.name}' (${declaredAt.file}:${declaredAt.line}:${declaredAt.column})`;
  return createProblem({
    code: 'E_TOOL_ENTRY_LOAD',
    message: `Importing spec.entry "${entry}" of ${tool} failed: ${options.message}`,
    location: { file, line: where.line, column: where.column },
    path: declaredAt.path,
  });
}
