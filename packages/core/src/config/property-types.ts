// Taken when this file loads (before any entry module), so a module that replaces it cannot change what is reported.
const namesOf = Object.getOwnPropertyNames;

/** Names listed at most; a module does not get to make a report of any size. */
const maxNames = 1000;

/**
 * Each own property of `value` (a module namespace, a `handlers` object) with its `typeof`, in a prototype-less
 * record, so a name such as `constructor` or `__proto__` is only there when the object really has it.
 */
export function propertyTypes(value: object): Record<string, string> {
  const types: Record<string, string> = Object.create(null);
  for (const name of namesOf(value).slice(0, maxNames)) {
    try {
      types[name] = typeof (value as Record<string, unknown>)[name];
    } catch {
      types[name] = 'unreadable';
    }
  }
  return types;
}
