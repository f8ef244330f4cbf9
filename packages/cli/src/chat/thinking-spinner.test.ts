import { expect, test } from 'bun:test';
import { thinkingSpinner } from './thinking-spinner.ts';

test('a SIGTERM or SIGHUP while the spinner spins stops it (the cursor it hid is shown again)', () => {
  const keep = () => {};
  // Another handler of the signal (as swarm mode has): the process is not ended by the spinner's.
  process.on('SIGTERM', keep);
  try {
    const spinner = thinkingSpinner({ enabled: true });
    const before = process.listenerCount('SIGTERM');
    spinner.start();
    expect(spinner.spinning).toBe(true);
    expect(process.listenerCount('SIGTERM')).toBe(before + 1);
    process.emit('SIGTERM', 'SIGTERM');
    expect(spinner.spinning).toBe(false);
    expect(process.listenerCount('SIGTERM')).toBe(before);
    // Stopped the usual way, it leaves no listener behind either.
    spinner.start();
    spinner.stop();
    expect(process.listenerCount('SIGTERM')).toBe(before);
    expect(process.listenerCount('SIGHUP')).toBe(0);
  } finally {
    process.off('SIGTERM', keep);
  }
});
