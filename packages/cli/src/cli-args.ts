import { parseArgs } from 'node:util';
import { closestName } from '@goondan/core/session';
import { UsageError } from './terminal.ts';

type OptionSpec = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;

/** Flags every command takes. */
export const commonOptions = {
  bundle: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionSpec;

/**
 * node:util parseArgs, with mistakes reported as usage errors of the command: an unknown flag names the closest
 * known one (`--agnet` → did you mean `--agent`?) or lists them all, and a flag that takes one value given twice
 * names both (`--instance was given twice (a, b); give it once`) instead of keeping the last. Only a flag its spec
 * declares `multiple` may repeat (none does today: lists are comma-separated, `--allow-origin a,b`); a boolean flag
 * given twice is accepted (docs/decisions.md#repeated-flags).
 */
export function parseCommandArgs<const O extends OptionSpec>(options: { command: string; argv: string[]; spec: O }) {
  const spec = { ...commonOptions, ...options.spec };
  const parse = () => {
    try {
      return parseArgs({
        args: joinNegativeValues(options.argv, spec),
        options: spec,
        allowPositionals: true,
        strict: true,
        tokens: true,
      });
    } catch (thrown) {
      const unknown = (thrown as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION';
      const flag = unknown ? /Unknown option '([^']+)'/.exec((thrown as Error).message)?.[1] : undefined;
      if (flag === undefined) throw new UsageError((thrown as Error).message, options.command);
      throw new UsageError(unknownOptionMessage(flag, spec), options.command, 'E_CLI_UNKNOWN_OPTION');
    }
  };
  const { values, positionals, tokens } = parse();
  const repeated = repeatedOptionMessage(tokens, spec);
  if (repeated !== undefined) throw new UsageError(repeated, options.command);
  return { values, positionals };
}

/** Flags whose values are secrets: a repeated one is named without them. */
const secretValuedOptions = new Set(['token']);

/** The longest value a repeated-flag message quotes whole (a long `--input` is cut). */
const quotedValueLength = 40;

/**
 * `--instance was given twice (a, b); give it once` for the first single-valued flag given more than once, or
 * undefined. Spelling does not matter: `--port 1 --port=2` is the same flag twice.
 */
function repeatedOptionMessage(
  tokens: ReadonlyArray<{ kind: string; name?: string; value?: string | undefined }>,
  spec: OptionSpec,
): string | undefined {
  const given = new Map<string, string[]>();
  for (const token of tokens) {
    const name = token.kind === 'option' ? token.name : undefined;
    const option = name === undefined ? undefined : spec[name];
    if (name === undefined || option === undefined || option.type !== 'string' || option.multiple) continue;
    const values = given.get(name) ?? [];
    values.push(token.value ?? '');
    given.set(name, values);
  }
  for (const [name, values] of given) {
    if (values.length < 2) continue;
    const times = values.length === 2 ? 'twice' : `${values.length} times`;
    const shown = secretValuedOptions.has(name)
      ? 'values not shown: it is a secret'
      : values.map(quoteValue).join(', ');
    return `--${name} was given ${times} (${shown}); give it once`;
  }
  return undefined;
}

function quoteValue(value: string): string {
  if (value === '') return "''";
  return value.length > quotedValueLength ? `${value.slice(0, quotedValueLength - 1)}…` : value;
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
