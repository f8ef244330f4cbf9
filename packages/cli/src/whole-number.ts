/**
 * The whole number written in `text` (digits only, as a flag or a query parameter gives it), or null when it is not
 * one, is below `min`, or is too large to be exact (above 2^53 − 1, where SQLite and timers refuse or round it).
 * `Number()` alone takes '', ' 5 ', '0x10' and '1e3', and 9223372036854775807 as an integer.
 *
 * @example
 * wholeNumber('20', 1) // 20
 * wholeNumber('0', 1) // null
 */
export function wholeNumber(text: string, min = 0): number | null {
  if (!/^\d{1,16}$/.test(text)) return null;
  const value = Number(text);
  return Number.isSafeInteger(value) && value >= min ? value : null;
}
