import type { ErrorCode } from '../errors/error-codes.ts';
import { errorCodes, helpUrlFor } from '../errors/error-codes.ts';
import type { FieldPath, YamlDocument } from './locate-field.ts';
import { formatFieldPath, locateField } from './locate-field.ts';
import type { BundleProblem, SourceLocation } from './resources.ts';

/** A BundleProblem at a known position; the suggestion defaults to the error table's. */
export function createProblem(options: {
  code: ErrorCode;
  message: string;
  location: SourceLocation;
  path?: string;
  suggestion?: string;
}): BundleProblem {
  return {
    code: options.code,
    message: options.message,
    file: options.location.file,
    line: options.location.line,
    column: options.location.column,
    path: options.path ?? '',
    suggestion: options.suggestion ?? errorCodes[options.code].suggestion,
    helpUrl: helpUrlFor(options.code),
  };
}

/** A BundleProblem at a field of a YAML document (or its nearest existing parent when the field is missing). */
export function problemAt(
  document: YamlDocument,
  options: { code: ErrorCode; path: FieldPath; message: string; suggestion?: string; at?: 'key' | 'value' },
): BundleProblem {
  const { line, column } = locateField(document, options.path, { at: options.at });
  return createProblem({
    code: options.code,
    message: options.message,
    location: { file: document.file, line, column },
    path: formatFieldPath(options.path),
    suggestion: options.suggestion,
  });
}
