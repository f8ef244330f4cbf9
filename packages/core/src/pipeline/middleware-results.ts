import type { ToolResult } from '../types.ts';

// What a middleware of each pipeline must resolve to: what `ctx.next()` resolved to, or a result of its own of the
// same shape. A layer that forgets `return ctx.next()` resolves to undefined; that is refused where it comes out of
// the chain with a message that says so (not a TypeError from deep in the loop), as a tool result for a toolCall
// middleware (E_TOOL_MIDDLEWARE) and as the turn's error for turn and step middleware (E_TURN_FAILED).

/** The three pipelines of middleware (spec §8.1). */
export type PipelineKind = 'turn' | 'step' | 'toolCall';

const turnStatuses = new Set(['completed', 'max_steps', 'cancelled', 'error']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isUsage(value: unknown): boolean {
  return isRecord(value) && typeof value.inputTokens === 'number' && typeof value.outputTokens === 'number';
}

/** The fields of a turn's result the loop reads (agent/turn-types.ts TurnResult). */
function isTurnResult(value: unknown): boolean {
  return (
    isRecord(value) &&
    turnStatuses.has(value.status as string) &&
    typeof value.text === 'string' &&
    isUsage(value.usage)
  );
}

/** The fields of a step's outcome the loop reads (agent/turn-types.ts StepOutcome). */
function isStepOutcome(value: unknown): boolean {
  return (
    isRecord(value) && typeof value.toolCalls === 'number' && typeof value.text === 'string' && isUsage(value.usage)
  );
}

/** `ok`; `error` with an error whose message is a string; `pending` with a handle. */
export function isToolResult(value: unknown): value is ToolResult {
  if (!isRecord(value)) return false;
  if (value.status === 'ok') return true;
  if (value.status === 'error') return isRecord(value.error) && typeof value.error.message === 'string';
  return value.status === 'pending' && typeof value.handle === 'string';
}

const expected: Record<PipelineKind, { check: (value: unknown) => boolean; what: string }> = {
  turn: { check: isTurnResult, what: "the turn's result ({ status, text, usage, ... })" },
  step: { check: isStepOutcome, what: "the step's outcome ({ text, toolCalls, usage, ... })" },
  toolCall: { check: isToolResult, what: 'a tool result ({ status: ok | error | pending, ... })' },
};

/** Null when `value` is what a middleware of `kind` may resolve to, else what is wrong with it, in one sentence. */
export function wrongMiddlewareResult(kind: PipelineKind, value: unknown): string | null {
  const { check, what } = expected[kind];
  if (check(value)) return null;
  return `a ${kind} middleware resolved to ${describeValue(value)} instead of ${what}: return what ctx.next() resolves to (was \`return\` left out?) or a result of that shape.`;
}

/** What a value is, for a message about a wrong one: nothing, null, a string, an array, an object of another shape. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object of another shape' : `a ${typeof value}`;
}
