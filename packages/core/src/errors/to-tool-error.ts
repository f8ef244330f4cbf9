import { redactKnownSecrets } from '../permissions/redact-known-secrets.ts';
import type { ToolError } from '../types.ts';
import type { ErrorCode } from './error-codes.ts';
import { errorCodes, helpUrlFor } from './error-codes.ts';
import { GoondanError } from './goondan-error.ts';
import { keepThrownStack } from './thrown-stack.ts';
import { truncateErrorMessage } from './truncate-error-message.ts';

/** Spec §2.4.3: default error message limit. */
export const DEFAULT_ERROR_MESSAGE_LIMIT = 1000;

/** The smallest errorMessageLimit a tool may have (the YAML schema's minimum for Tool spec.errorMessageLimit). */
export const MIN_ERROR_MESSAGE_LIMIT = 20;

/** Spec §10.4; in its own file, re-exported here where callers have always found it. */
export { truncateErrorMessage };

function describeThrown(thrown: unknown): { name: string; message: string } {
  if (thrown instanceof Error) return { name: thrown.name || 'Error', message: thrown.message };
  if (typeof thrown === 'string') return { name: 'Error', message: thrown };
  if (thrown === undefined) return { name: 'Error', message: 'Handler threw undefined' };
  if (thrown === null) return { name: 'Error', message: 'Handler threw null' };
  try {
    const json = JSON.stringify(thrown, (_key, value) => (typeof value === 'bigint' ? value.toString() : value));
    return { name: 'Error', message: json ?? String(thrown) };
  } catch {
    return { name: 'Error', message: String(thrown) };
  }
}

/**
 * The single place where anything thrown becomes the spec's ToolError (STYLE habit 4). Known secret values
 * (rememberSecretValue) are masked before the message is cut, so a provider error echoing a key never carries it.
 * It never throws, whatever was thrown: a value that cannot be read (a Proxy whose traps throw, an object whose
 * toString throws) is answered with `fallbackCode` and a message saying so, so a call or job that failed is answered.
 */
export function toToolError(thrown: unknown, options: { limit?: number; fallbackCode?: ErrorCode } = {}): ToolError {
  try {
    return readThrownError(thrown, options);
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

function readThrownError(thrown: unknown, options: { limit?: number; fallbackCode?: ErrorCode }): ToolError {
  const limit = options.limit ?? DEFAULT_ERROR_MESSAGE_LIMIT;
  if (thrown instanceof GoondanError) {
    const error = {
      code: thrown.code,
      name: thrown.name,
      message: truncateErrorMessage(redactKnownSecrets(thrown.message), limit),
      suggestion: redactKnownSecrets(thrown.suggestion),
      helpUrl: helpUrlFor(thrown.code),
    };
    return keepThrownStack(error, thrown);
  }
  const code = options.fallbackCode ?? 'E_TOOL';
  const { name, message: raw } = describeThrown(thrown);
  const message = redactKnownSecrets(raw);
  // Node-style errors (ENOENT, ECONNREFUSED, ...) carry a code of their own; keep it visible in the message.
  const ownCode = thrown instanceof Error ? (thrown as { code?: unknown }).code : undefined;
  const error = {
    code,
    name,
    message: truncateErrorMessage(typeof ownCode === 'string' ? `${message} (${ownCode})` : message, limit),
    suggestion: errorCodes[code].suggestion,
    helpUrl: helpUrlFor(code),
  };
  return keepThrownStack(error, thrown);
}
