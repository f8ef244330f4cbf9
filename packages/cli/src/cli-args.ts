import { parseArgs } from 'node:util';
import { UsageError } from './terminal.ts';

type OptionSpec = Record<string, { type: 'string' | 'boolean'; short?: string }>;

/** Flags every command takes. */
export const commonOptions = {
  bundle: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionSpec;

/** node:util parseArgs, with unknown flags reported as a usage error of the command. */
export function parseCommandArgs<const O extends OptionSpec>(options: { command: string; argv: string[]; spec: O }) {
  try {
    return parseArgs({
      args: options.argv,
      options: { ...commonOptions, ...options.spec },
      allowPositionals: true,
      strict: true,
    });
  } catch (thrown) {
    throw new UsageError((thrown as Error).message, options.command);
  }
}
