import { Console as NodeConsole } from 'node:console';
import { Writable } from 'node:stream';
import { redactForOutput } from './redact-output.ts';

const loggingMethods = ['log', 'info', 'debug', 'warn', 'error', 'trace', 'dir'] as const;

/**
 * A console whose every line is redacted (redactForOutput) before it reaches `target`: structured arguments
 * before they are formatted, and the formatted text (an Error's message, a `%s`) again on the way out.
 */
export function createRedactingConsole(
  target: { write(text: string): unknown },
  options: { env?: Readonly<Record<string, string | undefined>> } = {},
): Console {
  const env = options.env ?? process.env;
  const redacting = new Writable({
    write(chunk, _encoding, done) {
      target.write(redactForOutput(String(chunk), env));
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

/**
 * Where tool and extension logs go in the CLI: standard error, so standard output stays the command's result;
 * redacted like the audit log, so a tool logging its request does not print the password in it.
 */
export const stderrLogger = createRedactingConsole(process.stderr);
