import yoctoSpinner, { type Spinner } from 'yocto-spinner';

/**
 * A spinner on standard error while the model thinks (yocto-spinner): shown only on an interactive terminal, so a
 * pipe or a log file never gets its frames. `start` is idempotent; `stop` clears the line.
 */
export function thinkingSpinner(options: { enabled: boolean; text?: string }) {
  let spinner: Spinner | null = null;
  // The spinner hides the cursor: a SIGTERM or SIGHUP while it spins shows it again before the process ends.
  const onSignal = (signal: NodeJS.Signals) => {
    stop();
    // Nobody else handles it (swarm mode shuts down gracefully on SIGTERM): it ends the process as it would have.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  const endSignals = ['SIGTERM', 'SIGHUP'] as const;
  const stop = () => {
    if (!spinner) return;
    spinner.stop();
    spinner = null;
    for (const signal of endSignals) process.off(signal, onSignal);
  };
  return {
    start(text = options.text ?? 'thinking…') {
      if (!options.enabled || spinner) return;
      // Ctrl-C keeps its chat meaning (cancel the turn): the spinner must not exit the process on SIGINT.
      spinner = yoctoSpinner({ text, stream: process.stderr, handleSignals: false }).start();
      for (const signal of endSignals) process.once(signal, onSignal);
    },
    stop,
    get spinning() {
      return spinner !== null;
    },
  };
}
