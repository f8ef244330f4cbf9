import type { ErrorCode } from '../errors/error-codes.ts';
import { errorCodes, helpUrlFor } from '../errors/error-codes.ts';
import { toToolError } from '../errors/to-tool-error.ts';
import type { ToolError } from '../types.ts';

/**
 * toToolError for whatever was thrown, even a value that cannot be read (a Proxy whose traps throw, an object whose
 * toString throws): it never throws, so a call (or job) that failed is still answered, with `fallbackCode`.
 */
export function thrownToolError(
  thrown: unknown,
  options: { limit?: number; fallbackCode?: ErrorCode } = {},
): ToolError {
  try {
    return toToolError(thrown, options);
  } catch {
    const code = options.fallbackCode ?? 'E_TOOL';
    return {
      code,
      name: errorCodes[code].name,
      message: 'It threw a value that could not be read (reading it, or making it a string, threw).',
      suggestion: errorCodes[code].suggestion,
      helpUrl: helpUrlFor(code),
    };
  }
}
