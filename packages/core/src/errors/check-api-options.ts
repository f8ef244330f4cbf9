import { GoondanError } from './goondan-error.ts';

/** A wrong value in words: nothing, null, an array, a number, an object. */
function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object of another kind' : `a ${typeof value}`;
}

/** One check of an option: its name, whether the value passes, and what it should be. */
export type OptionCheck = [name: string, passes: (value: unknown) => boolean, expected: string];

/**
 * Checks the options an application passes to an entry point of the API (loadBundle, openAgentInstance), so a
 * wrong type is a coded error naming the option rather than a TypeError from deep inside.
 * @throws GoondanError E_OPTIONS_INVALID
 */
export function checkApiOptions(where: string, options: unknown, checks: readonly OptionCheck[]): void {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new GoondanError('E_OPTIONS_INVALID', `${where}: the options are ${describeValue(options)}, not an object.`);
  }
  for (const [name, passes, expected] of checks) {
    const value = (options as Record<string, unknown>)[name];
    if (!passes(value)) {
      throw new GoondanError(
        'E_OPTIONS_INVALID',
        `${where}: options.${name} must be ${expected}, got ${describeValue(value)}.`,
      );
    }
  }
}

export const isText = (value: unknown): boolean => typeof value === 'string' && value !== '';
export const optional =
  (check: (value: unknown) => boolean) =>
  (value: unknown): boolean =>
    value === undefined || check(value);
export const isObject = (value: unknown): boolean => typeof value === 'object' && value !== null;
