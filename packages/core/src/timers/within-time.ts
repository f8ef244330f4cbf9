/**
 * `work`'s outcome, or a rejection with `late()` once `ms` have passed without one. The timer is cleared when the work
 * settles; the work itself goes on (nothing can stop a promise), unobserved.
 *
 * @example
 * await withinTime(import(file), 10_000, () => new Error('it did not finish loading within 10 s'));
 */
export async function withinTime<T>(work: PromiseLike<T> | T, ms: number, late: () => Error): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    // Not unref'd: a work that never settles and holds nothing open must still end in `late()`, not a silent exit.
    timer = setTimeout(() => reject(late()), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
