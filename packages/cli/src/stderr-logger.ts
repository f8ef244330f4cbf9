import { redactForOutput } from './redact-output.ts';
import { printable } from './terminal.ts';

const loggingMethods = ['log', 'info', 'debug', 'warn', 'error', 'trace', 'dir'] as const;

/**
 * A console whose every line is redacted (redactForOutput) before it reaches `target`: structured arguments
 * before they are formatted, and the formatted text (an Error's message, a `%s`) again on the way out. Its lines are
 * made printable too: they carry what others wrote (an MCP server's tool names, its stdout garbage and its stderr in
 * the mcp extension's messages), and an escape sequence in them would retitle or clear the terminal.
 */
export function createRedactingConsole(
  target: { write(text: string): unknown },
  options: { env?: Readonly<Record<string, string | undefined>> } = {},
): Console {
  const env = options.env ?? process.env;
  // Required here, not imported at the top: node:console loads util.inspect and node:stream the stream classes,
  // ~25 ms of a start that logs nothing (stderrLogger below makes its console at the first use).
  const { Writable } = require('node:stream') as typeof import('node:stream');
  const { Console: NodeConsole } = require('node:console') as typeof import('node:console');
  const redacting = new Writable({
    write(chunk, _encoding, done) {
      target.write(printable(redactForOutput(String(chunk), env)));
      done();
    },
  });
  const logger = new NodeConsole({ stdout: redacting, stderr: redacting }) as unknown as Console;
  for (const method of loggingMethods) {
    const print = logger[method].bind(logger) as (...args: unknown[]) => void;
    logger[method] = (...args: unknown[]) => print(...args.map((arg) => redactForOutput(arg, env)));
  }
  return logger;
}

let stderrConsole: Console | undefined;

/**
 * Where tool and extension logs go in the CLI: standard error, so standard output stays the command's result;
 * redacted like the audit log, so a tool logging its request does not print the password in it. The console is
 * made at its first use (a proxy until then): a Node Console over process.stderr costs ~25 ms of a start (streams,
 * util.inspect), and most runs log nothing.
 */
export const stderrLogger: Console = new Proxy({} as Console, {
  get(_target, key) {
    stderrConsole ??= createRedactingConsole(process.stderr);
    const value = Reflect.get(stderrConsole, key);
    return typeof value === 'function' ? value.bind(stderrConsole) : value;
  },
  has(_target, key) {
    stderrConsole ??= createRedactingConsole(process.stderr);
    return Reflect.has(stderrConsole, key);
  },
});
