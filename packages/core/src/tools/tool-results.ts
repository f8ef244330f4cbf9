import type { ErrorCode } from '../errors/error-codes.ts';
import { errorCodes, helpUrlFor } from '../errors/error-codes.ts';
import { truncateErrorMessage } from '../errors/truncate-error-message.ts';
import type { JsonValue, ToolResult } from '../types.ts';
import { toJsonSafe } from './to-json-safe.ts';
import { isPendingSubmission } from './tool-jobs.ts';
import type { RegisteredTool } from './tool-registry.ts';

/** Messages are cut once, in `execute`, to the tool's limit (spec §2.4.2). */
export function errorResult(code: ErrorCode, message: string): ToolResult {
  return {
    status: 'error',
    error: {
      code,
      name: errorCodes[code].name,
      message,
      suggestion: errorCodes[code].suggestion,
      helpUrl: helpUrlFor(code),
    },
  };
}

/**
 * Spec §2.4.2–3: the one place an error message is cut, whoever wrote it (guard, permissions, middleware, handler),
 * to the called tool's errorMessageLimit, or 1000 characters when no such tool is registered.
 */
export function withinErrorLimit(result: ToolResult, limit: number): ToolResult {
  const message = result.error?.message;
  if (result.error === undefined || typeof message !== 'string' || message.length <= limit) return result;
  return { ...result, error: { ...result.error, message: truncateErrorMessage(message, limit) } };
}

/** A handler's output as a result. Reading it runs the tool's own code (getters, toJSON, Proxy traps): a throw there is the tool's error. */
export function outputResult(output: unknown, tool: RegisteredTool, name: string): ToolResult {
  try {
    if (isPendingSubmission(output)) return { status: 'pending', handle: output.handle };
    return { status: 'ok', output: capOutput(toJsonSafe(output), tool.outputLimit) };
  } catch (thrown) {
    const reason = (thrown as Error)?.message ?? String(thrown);
    return errorResult('E_TOOL', `Tool '${name}' returned an output that could not be serialized: ${reason}`);
  }
}

/** The previews capOutput made: one is longer than its limit by its own fields, and is not cut again. */
const previews = new WeakSet<object>();

/** Whether `output` is a preview capOutput made (toolCall middleware passing it on is not capped twice). */
export function isCappedPreview(output: unknown): boolean {
  return typeof output === 'object' && output !== null && previews.has(output);
}

/** A successful output larger than the tool's limit is replaced by a preview that says so. */
export function capOutput(output: JsonValue, limit: number): JsonValue {
  if (typeof output !== 'object' || output === null) {
    if (typeof output !== 'string' || output.length <= limit) return output;
  }
  const serialized = JSON.stringify(output);
  if (serialized.length <= limit) return output;
  const preview = {
    truncated: true,
    originalChars: serialized.length,
    limitChars: limit,
    preview: serialized.slice(0, limit),
    note: `Output was ${serialized.length} characters as JSON; only the first ${limit} are shown. Ask for less.`,
  };
  previews.add(preview);
  return preview;
}
