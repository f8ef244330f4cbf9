import { redactKnownSecrets } from '../permissions/redact-known-secrets.ts';
import type { ToolError } from '../types.ts';

/** Longest stack kept for a trace span. */
const MAX_STACK_CHARS = 4000;

// Beside the ToolError rather than in it: the error goes to the model and the audit log, the stack only to the trace.
const stacks = new WeakMap<ToolError, string>();

/** Remembers where `thrown` came from, for the trace of the call that produced `error`. */
export function keepThrownStack(error: ToolError, thrown: unknown): ToolError {
  const stack = thrown instanceof Error ? thrown.stack : undefined;
  if (typeof stack === 'string' && stack !== '') stacks.set(error, redactKnownSecrets(stack).slice(0, MAX_STACK_CHARS));
  return error;
}

/** The stack of the error a ToolError was made from, when it was an Error with one. */
export function thrownStackOf(error: ToolError | undefined): string | undefined {
  return error ? stacks.get(error) : undefined;
}
