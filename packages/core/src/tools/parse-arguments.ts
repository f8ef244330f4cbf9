import type { JsonObject } from '../types.ts';

/**
 * Arguments nested deeper than this are refused: JSON.stringify of a value nested some 10,000 levels deep overflows
 * the stack, and storing the call, tracing it or sending it to another agent stringifies it.
 */
export const MAX_ARGUMENT_DEPTH = 100;

/** Whether `value` nests arrays or objects more than `max` levels deep (walked without recursion). */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  // Every call's arguments come here, most of them flat: those are answered without the walk's allocations
  // (~7 ns against ~40 ns for `{ value: 1 }`, a tenth of a tool call; docs/performance.md).
  if (typeof value !== 'object' || value === null || (max > 0 && !holdsObject(value))) return false;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= max) return true;
    for (const item of Object.values(current))
      if (typeof item === 'object' && item !== null) stack.push([item, depth + 1]);
  }
  return false;
}

/** Whether an array or object holds another one directly. */
function holdsObject(value: object): boolean {
  if (Array.isArray(value)) {
    for (const item of value) if (typeof item === 'object' && item !== null) return true;
    return false;
  }
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key];
    if (typeof item === 'object' && item !== null) return true;
  }
  return false;
}

/** A call's arguments as an object, or why they are not one (a model may send broken JSON, an array, a number). */
export function parseArguments(raw: JsonObject | string | unknown): JsonObject | string {
  let value: unknown = raw;
  if (typeof raw === 'string') {
    if (raw.trim() === '') return {};
    try {
      value = JSON.parse(raw);
    } catch (thrown) {
      return `arguments are not valid JSON (${(thrown as Error).message})`;
    }
  }
  if (value === undefined || value === null) return {};
  if (nestedDeeperThan(value, MAX_ARGUMENT_DEPTH))
    return `arguments are nested more than ${MAX_ARGUMENT_DEPTH} levels deep`;
  if (typeof value !== 'object' || Array.isArray(value))
    return `arguments must be a JSON object, got ${Array.isArray(value) ? 'array' : typeof value}`;
  return value as JsonObject;
}
