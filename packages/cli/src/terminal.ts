// util.format and util.inspect are read when first used: a named import loads Bun's inspect module at start (~2 ms).
import util, { styleText } from 'node:util';

/**
 * Whether to colour what goes to `stream`, by the conventions Node's own colours follow: FORCE_COLOR set to
 * anything but `0`/`false` turns colours on even into a pipe (and wins over NO_COLOR); NO_COLOR
 * (https://no-color.org) or FORCE_COLOR=0 turns them off; otherwise only a terminal gets them, and not TERM=dumb.
 */
export function useColor(stream: { isTTY?: boolean } = process.stdout): boolean {
  const force = process.env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  if (process.env.NO_COLOR) return false;
  return stream.isTTY === true && process.env.TERM !== 'dumb';
}

const styles = { red: 'red', green: 'green', yellow: 'yellow', blue: 'blue', dim: 'dim', bold: 'bold', cyan: 'cyan' };
export type Style = keyof typeof styles;

/** `text` in a style when `enabled` (node:util styleText: nested styles close properly). */
export function paint(text: string, style: Style, enabled: boolean): string {
  return enabled ? styleText(styles[style] as Parameters<typeof styleText>[0], text, { validateStream: false }) : text;
}

/**
 * Text a model or a tool wrote, safe to put on a terminal: each control character (ESC, NUL, BEL, DEL, C1 codes, a
 * lone carriage return) becomes U+FFFD, so nothing in it can move the cursor, clear the screen, retitle the window
 * or set the clipboard. Newlines, tabs and CRLF line ends stay.
 */
export function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
  return text.replace(/(?!\r\n)[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '\ufffd');
}

/**
 * The Orchestrator's `onOutput` for a command on a terminal: a line an agent process wrote, on standard error as
 * `[agent/instance] line`, printable (its tools' and extensions' words hold no escape sequence of theirs).
 */
export function writeAgentOutput(line: string, source: { agent: string; instanceKey: string }): void {
  process.stderr.write(`[${source.agent}/${source.instanceKey}] ${printable(line)}\n`);
}

type Write = (text: string) => unknown;

/**
 * Makes the console write plain text: the CLI's output is coloured only where it paints it (paint, useColor).
 * Bun's own console paints on a terminal whatever TERM or FORCE_COLOR say, reading only NO_COLOR (once, at start):
 * every console.error line in red, objects in colour. So the console's methods format with util.format (which
 * never colours) and hand the text on: standard output's to Bun's console.log, which prints a single string as it
 * is (and stays Bun's quick synchronous writer), standard error's to process.stderr, as Bun has no plain writer
 * for it. Called once by main.ts; `streams` are for tests.
 */
export function usePlainConsole(target: Console = console, streams: { stdout?: Write; stderr?: Write } = {}): void {
  const printLine = target.log.bind(target);
  const out = streams.stdout ?? ((text: string) => printLine(text.slice(0, -1)));
  const err = streams.stderr ?? ((text: string) => process.stderr.write(text));
  const line = (args: unknown[]) => `${util.format(...args)}\n`;
  target.log = (...args: unknown[]) => out(line(args));
  target.info = target.log;
  target.debug = target.log;
  target.dir = (item: unknown, options?: object) => out(`${util.inspect(item, { ...options, colors: false })}\n`);
  target.error = (...args: unknown[]) => err(line(args));
  target.warn = target.error;
  target.trace = (...args: unknown[]) => {
    const stack = new Error().stack?.split('\n').slice(2).join('\n') ?? '';
    err(`Trace${args.length > 0 ? `: ${util.format(...args)}` : ''}\n${stack}\n`);
  };
  target.assert = (condition?: unknown, ...args: unknown[]) => {
    if (!condition) err(`Assertion failed${args.length > 0 ? `: ${util.format(...args)}` : ''}\n`);
  };
}

/** Codes of usage mistakes; each has a page in docs/errors like every code in @goondan/core's table. */
export type UsageCode = 'E_CLI_USAGE' | 'E_CLI_UNKNOWN_COMMAND' | 'E_CLI_UNKNOWN_OPTION';

/** A usage mistake: printed with its code, the command's help hint and a help link; exit code 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command: string,
    readonly code: UsageCode = 'E_CLI_USAGE',
  ) {
    super(message);
  }
}
