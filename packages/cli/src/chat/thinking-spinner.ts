import yoctoSpinner, { type Spinner } from 'yocto-spinner';

/**
 * A spinner on standard error while the model thinks (yocto-spinner): shown only on an interactive terminal, so a
 * pipe or a log file never gets its frames. `start` is idempotent; `stop` clears the line.
 */
export function thinkingSpinner(options: { enabled: boolean; text?: string }) {
  let spinner: Spinner | null = null;
  return {
    start(text = options.text ?? 'thinking…') {
      if (!options.enabled || spinner) return;
      // Ctrl-C keeps its chat meaning (cancel the turn): the spinner must not exit the process on SIGINT.
      spinner = yoctoSpinner({ text, stream: process.stderr, handleSignals: false }).start();
    },
    stop() {
      spinner?.stop();
      spinner = null;
    },
    get spinning() {
      return spinner !== null;
    },
  };
}
