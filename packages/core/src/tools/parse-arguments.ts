import type { JsonObject } from '../types.ts';

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
  if (typeof value !== 'object' || Array.isArray(value))
    return `arguments must be a JSON object, got ${Array.isArray(value) ? 'array' : typeof value}`;
  return value as JsonObject;
}
