/** Asks the terminal to mark pasted text (xterm's bracketed paste mode), and to stop. */
const PASTE_ON = '\x1b[?2004h';
const PASTE_OFF = '\x1b[?2004l';

/**
 * A paste of several lines is one message, sent with the Enter pressed after it (a stack trace or a list pasted
 * into `gdn chat` was a turn per line). The terminal marks pasted text when bracketed paste mode is on; readline
 * reports the marks as `paste-start` / `paste-end` keypresses and still emits a `line` per line pasted, so the
 * lines read during a paste are held and given, joined with the next line (what follows the paste up to Enter),
 * to `take`'s caller. Terminals that do not know the mode ignore it, and their pastes stay a line per turn.
 *
 * The mode is turned off again when the chat ends, and on SIGTERM/SIGHUP before the process ends (a shell
 * without it would show the marks around every later paste).
 */
export function bracketedPaste(options: { input: NodeJS.ReadStream; output: NodeJS.WriteStream; enabled: boolean }) {
  let pasting = false;
  const held: string[] = [];
  const onKeypress = (_text: string | undefined, key: { name?: string } | undefined) => {
    if (key?.name === 'paste-start') pasting = true;
    else if (key?.name === 'paste-end') pasting = false;
  };
  const off = () => options.output.write(PASTE_OFF);
  const onSignal = (signal: NodeJS.Signals) => {
    dispose();
    // Nobody else handles it (swarm mode shuts down gracefully on SIGTERM): it ends the process as it would have.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  const endSignals = ['SIGTERM', 'SIGHUP'] as const;
  let active = false;
  function dispose() {
    if (!active) return;
    active = false;
    options.input.off('keypress', onKeypress);
    process.off('exit', off);
    for (const signal of endSignals) process.off(signal, onSignal);
    off();
  }
  if (options.enabled) {
    active = true;
    options.output.write(PASTE_ON);
    options.input.on('keypress', onKeypress);
    process.on('exit', off);
    for (const signal of endSignals) process.once(signal, onSignal);
  }
  return {
    /**
     * The line readline gave, or null while a paste holds it; after a paste, the held lines joined with this one
     * (an empty last line, Enter right after a paste that ended with a newline, is not kept).
     */
    take(line: string): string | null {
      if (pasting) {
        held.push(line);
        return null;
      }
      if (held.length === 0) return line;
      const lines = held.splice(0);
      if (line !== '') lines.push(line);
      return lines.join('\n');
    },
    dispose,
  };
}
