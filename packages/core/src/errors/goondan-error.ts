import type { ErrorCode } from './error-codes.ts';
import { errorCodes } from './error-codes.ts';

/**
 * An error with a stable code from the error table. Thrown inside core and by tool handlers
 * (`throw new GoondanError('E_FILE_NOT_FOUND', 'No file a.txt')`); the pipeline turns it into a ToolResult.
 */
export class GoondanError extends Error {
  readonly code: ErrorCode;
  readonly suggestion: string;

  constructor(code: ErrorCode, message: string, options: { suggestion?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.name = errorCodes[code].name;
    this.suggestion = options.suggestion ?? errorCodes[code].suggestion;
  }
}
