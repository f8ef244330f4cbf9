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
