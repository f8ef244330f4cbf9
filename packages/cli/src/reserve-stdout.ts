import { stderrLogger } from './stderr-logger.ts';

/** The real standard output, whatever replaced process.stdout.write since it was reserved. */
export interface ProtocolOutput {
  /** Like a stream's write: false when the caller should wait for `drain`. */
  write(text: string): boolean;
  once(event: 'drain', listener: () => void): void;
  /** A failed write (EPIPE: the reader closed its end). */
  on(event: 'error', listener: (error: Error) => void): void;
}

let reserved: ProtocolOutput | undefined;

/**
 * For a command whose standard output is a channel of its own (`gdn mcp serve` over stdio, one JSON document for
 * --json): from here on whatever else would print there (console.log/info/debug, a tool module's or handler's
 * process.stdout.write) goes to standard error, and only the returned output reaches the real standard output. Call
 * it before the bundle's modules are imported to cover what they print at their top level; calling it again returns
 * the same output. Not at import: the first use of process.stdout builds Node's stream machinery (~20 ms of a start).
 */
export function reserveStdout(): ProtocolOutput {
  if (reserved) return reserved;
  const stdout = process.stdout;
  const write = stdout.write.bind(stdout) as (text: string) => boolean;
  reserved = {
    write,
    once: (event, listener) => void stdout.once(event, listener),
    on: (event, listener) => void stdout.on(event, listener),
  };
  console.log = stderrLogger.log.bind(stderrLogger);
  console.info = stderrLogger.info.bind(stderrLogger);
  console.debug = stderrLogger.debug.bind(stderrLogger);
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  return reserved;
}
