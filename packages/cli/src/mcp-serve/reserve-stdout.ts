import { stderrLogger } from '../stderr-logger.ts';

/** Where the protocol writes: the real standard output, whatever replaced process.stdout.write since. */
export interface ProtocolOutput {
  /** Like a stream's write: false when the caller should wait for `drain`. */
  write(text: string): boolean;
  once(event: 'drain', listener: () => void): void;
}

let reserved: ProtocolOutput | undefined;

/**
 * For `gdn mcp serve` over stdio: standard output is the protocol channel, so from here on whatever else would
 * print there (console.log/info/debug, a tool module's or handler's process.stdout.write) goes to standard error,
 * and only the returned output reaches the real standard output. Call it before the bundle's modules are imported
 * to cover what they print at their top level; calling it again returns the same output.
 */
export function reserveStdoutForProtocol(): ProtocolOutput {
  if (reserved) return reserved;
  const stdout = process.stdout;
  const write = stdout.write.bind(stdout) as (text: string) => boolean;
  reserved = { write, once: (event, listener) => void stdout.once(event, listener) };
  console.log = stderrLogger.log.bind(stderrLogger);
  console.info = stderrLogger.info.bind(stderrLogger);
  console.debug = stderrLogger.debug.bind(stderrLogger);
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  return reserved;
}
