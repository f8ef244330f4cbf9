import type { Ajv } from 'ajv';
import { buildToolName, checkNamePart, providerToolNamePattern } from '../tools/tool-name.ts';
import { checkParametersSchema } from './check-parameters-schema.ts';
import { checkToolRequires } from './check-tool-requires.ts';
import { problemAt } from './create-problem.ts';
import type { YamlDocument } from './locate-field.ts';
import type { BundleProblem } from './resources.ts';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An older single-function Tool: `spec.parameters` and no `spec.exports` (docs/migrating.md). */
export function isSingleFunctionTool(spec: Record<string, unknown>): boolean {
  return spec.exports === undefined && spec.parameters !== undefined;
}

/**
 * The Tool rules of spec §4.3 and §15 that need no file system: entry given, at least one export, export names
 * valid and unique, full names within the provider limit, parameters a valid JSON Schema, `requires` values. Wrong types are left to
 * the shape check; entry existence and handlers are checked when the entry is imported.
 */
export function checkToolRules(options: {
  document: YamlDocument;
  /** metadata.name when it is itself valid; the full-name length rule needs it. */
  resourceName: string | undefined;
  parametersAjv: Ajv;
}): BundleProblem[] {
  const { document, resourceName } = options;
  const spec = (document.value as { spec?: unknown }).spec;
  if (!isPlainObject(spec)) return [];
  const problems: BundleProblem[] = checkToolRequires(document);

  const entry = spec.entry;
  if (entry === undefined || entry === null || (typeof entry === 'string' && entry.trim() === '')) {
    problems.push(
      problemAt(document, {
        code: 'E_TOOL_ENTRY_MISSING',
        path: ['spec', 'entry'],
        message: `Tool "${resourceName ?? '?'}" has no spec.entry (spec §4.3: the handler module is required)`,
      }),
    );
  }

  const exports = spec.exports;
  // An older single-function Tool (`parameters`, no `exports`) loads as one export (docs/migrating.md).
  if (isSingleFunctionTool(spec)) {
    if (!isPlainObject(spec.parameters)) return problems;
    const path = ['spec', 'parameters'];
    problems.push(...checkParametersSchema({ document, path, schema: spec.parameters, ajv: options.parametersAjv }));
    return problems;
  }
  if (exports === undefined || exports === null || (Array.isArray(exports) && exports.length === 0)) {
    problems.push(
      problemAt(document, {
        code: 'E_TOOL_EXPORTS_EMPTY',
        path: ['spec', 'exports'],
        message: `Tool "${resourceName ?? '?'}" declares no exports (spec §4.3: at least one is required)`,
      }),
    );
  }
  if (!Array.isArray(exports)) return problems;

  const firstIndexByName = new Map<string, number>();
  exports.forEach((item: unknown, index) => {
    if (!isPlainObject(item)) return;
    const namePath = ['spec', 'exports', index, 'name'];
    const name = item.name;
    if (typeof name === 'string') {
      const reason = checkNamePart(name);
      const firstIndex = firstIndexByName.get(name);
      if (reason) {
        problems.push(
          problemAt(document, { code: 'E_NAME_INVALID', path: namePath, message: `Export name "${name}" ${reason}` }),
        );
      } else if (firstIndex !== undefined) {
        problems.push(
          problemAt(document, {
            code: 'E_TOOL_EXPORT_DUPLICATE',
            path: namePath,
            message: `Export name "${name}" is already used by spec.exports[${firstIndex}] (spec §4.3: names are unique within a Tool)`,
          }),
        );
      } else if (resourceName !== undefined) {
        const fullName = buildToolName(resourceName, name);
        if (!providerToolNamePattern.test(fullName)) {
          problems.push(
            problemAt(document, {
              code: 'E_NAME_TOO_LONG',
              path: namePath,
              message: `Tool name "${fullName}" is ${fullName.length} characters; providers accept at most 64`,
            }),
          );
        }
      }
      if (firstIndex === undefined) firstIndexByName.set(name, index);
    }
    if (isPlainObject(item.parameters)) {
      const path = ['spec', 'exports', index, 'parameters'];
      problems.push(...checkParametersSchema({ document, path, schema: item.parameters, ajv: options.parametersAjv }));
    }
  });
  return problems;
}
