import { badRequest } from '../serve/api-error.ts';
import { wholeNumber } from '../whole-number.ts';

/** Reads one query parameter's text (never empty) into its value, or throws E_SERVE_BAD_REQUEST saying why. */
export type FilterParser<T> = (text: string, name: string) => T;

/**
 * The filters of a console endpoint from its query string, each read by its parser. A bad value, a parameter the
 * endpoint does not take (a misspelt `stauts=`) or one given twice is a 400: a filter that matched nothing
 * because it was mistyped would look like an empty answer. Empty values count as not given (forms send them).
 */
export function readFilters<Spec extends Record<string, FilterParser<unknown>>>(
  url: URL,
  spec: Spec,
): { [Name in keyof Spec]?: ReturnType<Spec[Name]> } {
  const filters: Record<string, unknown> = {};
  const seen = new Set<string>();
  for (const [name, text] of url.searchParams) {
    const parse = Object.hasOwn(spec, name) ? spec[name] : undefined;
    if (!parse) {
      const taken = Object.keys(spec).join(', ');
      throw badRequest(`'${name.slice(0, 64)}' is not a filter of this endpoint; it takes ${taken}.`);
    }
    if (seen.has(name)) throw badRequest(`'${name}' is given twice.`);
    seen.add(name);
    if (text !== '') filters[name] = parse(text, name);
  }
  return filters as { [Name in keyof Spec]?: ReturnType<Spec[Name]> };
}

/** One of `allowed`. */
export function oneOf<const T extends string>(allowed: readonly T[]): FilterParser<T> {
  return (text, name) => {
    if (!(allowed as readonly string[]).includes(text)) {
      const choices = `${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}`;
      throw badRequest(`'${name}' must be ${choices}; got '${text.slice(0, 64)}'.`);
    }
    return text as T;
  };
}

/** Text matching `pattern`, described as `what` when it does not. */
export function matching(pattern: RegExp, what: string): FilterParser<string> {
  return (text, name) => {
    if (!pattern.test(text)) throw badRequest(`'${name}' must be ${what}; got '${text.slice(0, 64)}'.`);
    return text;
  };
}

/** A positive whole number, at most `max` (a larger one is taken as `max`). */
export function positiveInteger(max: number): FilterParser<number> {
  return (text, name) => {
    const value = wholeNumber(text, 1);
    if (value === null) throw badRequest(`'${name}' must be a positive integer; got '${text.slice(0, 64)}'.`);
    return Math.min(value, max);
  };
}

/** A time: ISO 8601 or epoch milliseconds. */
export const time: FilterParser<number> = (text, name) => {
  const at = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (!Number.isFinite(at) || Math.abs(at) > 8.64e15) {
    throw badRequest(`'${name}' must be a time (ISO 8601 or epoch milliseconds); got '${text.slice(0, 64)}'.`);
  }
  return at;
};

/** An instance key (as instance paths take it). */
export const instanceKeyFilter = matching(
  /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/,
  "an instance key (1-128 letters, digits, '_', '.', '-')",
);

/** Any text (a name compared as it is). */
export const anyText: FilterParser<string> = (text) => text;
