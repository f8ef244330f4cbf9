/** `null`, `an array`, `a string`: what a JSON value is, for messages that must not quote it (it may be huge). */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
