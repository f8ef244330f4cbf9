// Taken when this file loads (before any entry module), so a module that replaces it cannot change what is reported.
const namesOf = Object.getOwnPropertyNames;

/**
 * Names read at most from one object. A module does not get to make a report of any size, but the bound is above
 * what a Tool can declare (a goondan.yaml of at most 1 MiB holds fewer exports), and an object with more names is
 * reported as such (hasMoreNames), never cut short in silence: a bound of 1000 made the 1001st export's handler
 * look missing (docs/errors/E_TOOL_HANDLER_MISSING.md).
 */
export const maxPropertyNames = 100_000;

/**
 * Each own property of `value` (a module namespace, a `handlers` object) with its `typeof`, in a prototype-less
 * record, so a name such as `constructor` or `__proto__` is only there when the object really has it. Of an object
 * with more than maxPropertyNames names, one more than that is listed, so the reader can tell (hasMoreNames).
 */
export function propertyTypes(value: object): Record<string, string> {
  const types: Record<string, string> = Object.create(null);
  for (const name of namesOf(value).slice(0, maxPropertyNames + 1)) {
    try {
      types[name] = typeof (value as Record<string, unknown>)[name];
    } catch {
      types[name] = 'unreadable';
    }
  }
  return types;
}

/** Whether `types` (from propertyTypes) lists only some of its object's names: it had more than maxPropertyNames. */
export function hasMoreNames(types: Record<string, string>): boolean {
  return Object.keys(types).length > maxPropertyNames;
}
