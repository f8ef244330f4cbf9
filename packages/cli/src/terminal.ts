/** Colours only on a TTY, and never when NO_COLOR is set (https://no-color.org convention). */
export function useColor(stream: NodeJS.WriteStream = process.stdout): boolean {
  return stream.isTTY === true && !process.env.NO_COLOR && process.env.TERM !== 'dumb';
}

const codes = { red: 31, green: 32, yellow: 33, blue: 34, dim: 2, bold: 1, cyan: 36 } as const;
export type Style = keyof typeof codes;

export function paint(text: string, style: Style, enabled: boolean): string {
  return enabled ? `\u001b[${codes[style]}m${text}\u001b[0m` : text;
}

/** A usage mistake: printed with the command's help hint, exit code 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command: string,
  ) {
    super(message);
  }
}
