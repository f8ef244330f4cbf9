import { styleText } from 'node:util';

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
