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

test('a flag that takes one value given twice is a usage error naming it and both values, not the last one kept', () => {
  const spec = {
    instance: { type: 'string' },
    port: { type: 'string' },
    token: { type: 'string' },
    json: { type: 'boolean' },
  } as const;
  const thrown = (argv: string[]) => {
    try {
      parseCommandArgs({ command: 'serve', argv, spec });
    } catch (error) {
      return error;
    }
    throw new Error(`no usage error for ${argv.join(' ')}`);
  };
  expect(thrown(['--instance', 'a', '--instance', 'b'])).toMatchObject({
    code: 'E_CLI_USAGE',
    command: 'serve',
    message: '--instance was given twice (a, b); give it once',
  });
  expect(thrown(['--instance', 'a', '--instance', 'b'])).toBeInstanceOf(UsageError);
  // Each spelling counts, a value the same as the first too, and a third is counted.
  expect((thrown(['--port', '1', '--port=2', '--port', '-3']) as Error).message).toBe(
    '--port was given 3 times (1, 2, -3); give it once',
  );
  expect((thrown(['--port=8080', '--port', '8080']) as Error).message).toBe(
    '--port was given twice (8080, 8080); give it once',
  );
  expect((thrown(['--bundle=', '--bundle', 'x']) as Error).message).toBe(
    "--bundle was given twice ('', x); give it once",
  );
  // A long value is cut; a secret is never echoed.
  expect((thrown(['--instance', 'x'.repeat(100), '--instance', 'b']) as Error).message).toBe(
    `--instance was given twice (${'x'.repeat(39)}…, b); give it once`,
  );
  const secret = (thrown(['--token', 'hunter2', '--token', 'hunter3']) as Error).message;
  expect(secret).toBe('--token was given twice (values not shown: it is a secret); give it once');
});

test('a boolean flag given twice, a value after --, and a flag its spec declares multiple are accepted', () => {
  const spec = {
    instance: { type: 'string' },
    json: { type: 'boolean' },
    env: { type: 'string', multiple: true },
  } as const;
  const parsed = parseCommandArgs({
    command: 'run',
    argv: ['--json', '--json', '--instance', 'a', '--', '--instance', 'b'],
    spec,
  });
  expect(parsed.values).toEqual({ json: true, instance: 'a' });
  expect(parsed.positionals).toEqual(['--instance', 'b']);
  expect(parseCommandArgs({ command: 'run', argv: ['--env', 'A=1', '--env=B=2'], spec }).values.env).toEqual([
    'A=1',
    'B=2',
  ]);
});
