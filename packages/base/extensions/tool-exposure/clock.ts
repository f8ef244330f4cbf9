/**
 * The time tool-exposure reads expiries against. Production reads `Date.now()`; tests move time forward with
 * `setClock` instead of sleeping through a TTL (the setting is process-wide, so restore it with `setClock()`).
 */
let source: () => number = Date.now;

export function now(): number {
  return source();
}

/** Tests only: read time from `next` (epoch milliseconds), or from `Date.now` again when called without one. */
export function setClock(next?: () => number): void {
  source = next ?? Date.now;
}
