import { expect, test } from 'bun:test';
import { parseCommandArgs, unknownCommandMessage } from './cli-args.ts';
import { UsageError } from './terminal.ts';

function usageError(argv: string[]): UsageError {
  try {
    parseCommandArgs({ command: 'run', argv, spec: { input: { type: 'string' }, json: { type: 'boolean' } } });
  } catch (thrown) {
    if (thrown instanceof UsageError) return thrown;
    throw thrown;
  }
  throw new Error('no usage error');
}

test('an unknown flag names the closest flag of the command, or lists them; other mistakes are E_CLI_USAGE', () => {
  expect(usageError(['--jsno'])).toMatchObject({
    code: 'E_CLI_UNKNOWN_OPTION',
    command: 'run',
    message: "Unknown option '--jsno'. Did you mean '--json'?",
  });
  expect(usageError(['--inptu=hi']).message).toBe("Unknown option '--inptu'. Did you mean '--input'?");
  expect(usageError(['--zzzzzzzz']).message).toBe(
    "Unknown option '--zzzzzzzz'. Its options: --bundle, --help, --input, --json.",
  );
  expect(usageError(['--input']).code).toBe('E_CLI_USAGE');
  expect(unknownCommandMessage('chta', ['run', 'chat'])).toBe(
    "unknown command 'chta'. Did you mean 'chat'? Commands: run, chat.",
  );
});

test("a negative number after a flag that takes a value is that flag's value, for the command to check", () => {
  const spec = { limit: { type: 'string' }, json: { type: 'boolean' } } as const;
  expect(parseCommandArgs({ command: 'trace', argv: ['--limit', '-1'], spec }).values.limit).toBe('-1');
  expect(parseCommandArgs({ command: 'trace', argv: ['--limit', '-0.5', 'x'], spec }).positionals).toEqual(['x']);
  // Not after a boolean flag, not after `--`, and a dash that is no number is still a flag.
  expect(() => parseCommandArgs({ command: 'trace', argv: ['--json', '-1'], spec })).toThrow(UsageError);
  expect(parseCommandArgs({ command: 'trace', argv: ['--', '--limit', '-1'], spec }).positionals).toEqual([
    '--limit',
    '-1',
  ]);
  expect(() => parseCommandArgs({ command: 'trace', argv: ['--limit', '-x'], spec })).toThrow(UsageError);
});
