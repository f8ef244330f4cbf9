/**
 * `work`'s outcome, or a rejection with the signal's reason as soon as `signal` aborts: a model that ignores its
 * abortSignal (a custom LanguageModel whose stream never ends) must not hold a cancelled turn, and every turn queued
 * behind it, forever. The work goes on unobserved; its late outcome is dropped.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => {});
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (thrown) => {
        signal.removeEventListener('abort', onAbort);
        reject(thrown);
      },
    );
  });
}
