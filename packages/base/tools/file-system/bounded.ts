/** `value` as an integer within [min, max]; `fallback` when it is missing or not a number. */
export function bounded(value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.min(Math.max(min, Math.floor(value)), max);
}
