import { parseArgs } from 'node:util';
import { closestName } from '@goondan/core/session';
import { UsageError } from './terminal.ts';

type OptionSpec = Record<string, { type: 'string' | 'boolean'; short?: string }>;

/** Flags every command takes. */
export const commonOptions = {
  bundle: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionSpec;

/**
 * node:util parseArgs, with mistakes reported as usage errors of the command: an unknown flag names the closest
 * known one (`--agnet` → did you mean `--agent`?) or lists them all.
 */
export function parseCommandArgs<const O extends OptionSpec>(options: { command: string; argv: string[]; spec: O }) {
  const spec = { ...commonOptions, ...options.spec };
  try {
    return parseArgs({
      args: joinNegativeValues(options.argv, spec),
      options: spec,
      allowPositionals: true,
      strict: true,
    });
  } catch (thrown) {
    const unknown = (thrown as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION';
    const flag = unknown ? /Unknown option '([^']+)'/.exec((thrown as Error).message)?.[1] : undefined;
    if (flag === undefined) throw new UsageError((thrown as Error).message, options.command);
    throw new UsageError(unknownOptionMessage(flag, spec), options.command, 'E_CLI_UNKNOWN_OPTION');
  }
}

/**
 * `--limit -1` as `--limit=-1`: parseArgs takes a value that starts with a dash for a flag and calls the option
 * ambiguous, so a negative number never reached the command's own check, which says what the option takes.
 */
function joinNegativeValues(argv: string[], spec: OptionSpec): string[] {
  const out: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index]!;
    if (arg === '--') return out.concat(argv.slice(index));
    const next = argv[index + 1];
    const name = arg.startsWith('--') ? arg.slice(2) : undefined;
    if (name !== undefined && spec[name]?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      index += 1;
    } else {
      out.push(arg);
    }
  }
  return out;
}

/** `Unknown option '--agnet'. Did you mean '--agent'?`, or the list of the command's flags when none is close. */
export function unknownOptionMessage(flag: string, spec: OptionSpec): string {
  const known = Object.entries(spec).flatMap(([name, option]) => [
    `--${name}`,
    ...(option.short ? [`-${option.short}`] : []),
  ]);
  const [name] = flag.split('=', 1);
  const guess = closestName(
    name ?? flag,
    known.filter((candidate) => candidate.startsWith('--') === flag.startsWith('--')),
  );
  const hint = guess
    ? `Did you mean '${guess}'?`
    : `Its options: ${known.filter((candidate) => candidate.startsWith('--')).join(', ')}.`;
  return `Unknown option '${flag}'. ${hint}`;
}

/**
 * The usage error of a subcommand a command does not have (`gdn tools lst`): the closest one, the list either way,
 * and the same code as an unknown command.
 */
export function unknownSubcommand(command: string, sub: string, subcommands: readonly string[]): UsageError {
  const guess = closestName(sub, subcommands);
  const hint = guess ? ` Did you mean '${command} ${guess}'?` : '';
  return new UsageError(
    `unknown subcommand '${command} ${sub}'.${hint} Subcommands: ${subcommands.join(', ')}.`,
    command,
    'E_CLI_UNKNOWN_COMMAND',
  );
}

/** `Unknown command 'chta'. Did you mean 'chat'?` (with the list of commands either way). */
export function unknownCommandMessage(name: string, commands: string[]): string {
  const guess = closestName(name, commands);
  return `unknown command '${name}'.${guess ? ` Did you mean '${guess}'?` : ''} Commands: ${commands.join(', ')}.`;
}
