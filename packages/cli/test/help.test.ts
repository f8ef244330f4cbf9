import { afterAll, describe, expect, test } from 'bun:test';
import { cleanupTempDirs, cliEnv, gdn } from './helpers.ts';

afterAll(cleanupTempDirs);

const commandHelp: [string, string][] = [
  ['validate --help', 'Usage: gdn validate [DIR] [--json] [--bundle DIR]'],
  ['tools --help', 'Usage: gdn tools <list|call> [options]'],
  ['tools list --help', 'Usage: gdn tools <list|call> [options]'],
  ['tools call --help', 'Usage: gdn tools <list|call> [options]'],
  ['run --help', 'Usage: gdn run --input TEXT [--agent A] [--instance K] [--json] [--bundle DIR]'],
  ['chat --help', 'Usage: gdn chat [--agent A] [--instance K] [--bundle DIR]'],
  ['trace -h', 'Usage: gdn trace [--agent A] [--instance K] [--limit N] [--json | --otlp] [--bundle DIR]'],
  ['help run', 'Usage: gdn run --input TEXT'],
];

describe('gdn help and usage', () => {
  test.each(commandHelp)('gdn %s prints the command usage and exits 0', async (command, usage) => {
    // From a directory with no bundle: help never needs one.
    const result = await gdn(command.split(' '));
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toStartWith(usage);
    expect(result.stdout).toContain('--bundle DIR');
    // Every help ends with an absolute link to the command's section of docs/cli.md.
    expect(result.stdout.trimEnd().split('\n').at(-1)).toMatch(/^Docs: https:\/\/\S+\/docs\/cli\.md#gdn-[a-z-]+$/);
    expect(result.stderr).toBe('');
  });

  test('gdn --help lists every command and exits 0', async () => {
    const result = await gdn(['--help']);
    expect(result.exitCode).toBe(0);
    for (const command of ['validate', 'tools list', 'tools call', 'run', 'chat', 'trace'])
      expect(result.stdout).toContain(`\n  ${command} `);
  });

  test('gdn with no arguments shows the usage and exits 2', async () => {
    const result = await gdn([]);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toContain('Usage: gdn <command> [options]');
  });

  test('an unknown command exits 2 with a did-you-mean, its code and a help link under GOONDAN_DOCS_URL', async () => {
    const result = await gdn(['chta'], { env: cliEnv({ GOONDAN_DOCS_URL: 'https://docs.example.test/goondan' }) });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      "gdn: unknown command 'chta'. Did you mean 'chat'? Commands: validate, tools, run, chat, trace, audit, approvals, ps, changes, mcp, serve, auth, schedules, init, types.",
      "Run 'gdn --help' for usage.",
      '  code: E_CLI_UNKNOWN_COMMAND',
      '  help: https://docs.example.test/goondan/errors/E_CLI_UNKNOWN_COMMAND.md',
    ]);
    expect(result.stdout).toBe('');
  });

  test('a mistyped flag exits 2 naming the closest flag of the command', async () => {
    const result = await gdn(['chat', '--agnet', 'helper']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toStartWith("gdn chat: Unknown option '--agnet'. Did you mean '--agent'?\n");
    expect(result.stderr).toContain('  code: E_CLI_UNKNOWN_OPTION\n');
    expect(result.stderr).toMatch(/ {2}help: https:\/\/\S+\/docs\/errors\/E_CLI_UNKNOWN_OPTION\.md\n$/);
  });

  test('gdn tools with no subcommand shows its usage and exits 2', async () => {
    const result = await gdn(['tools']);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toStartWith('Usage: gdn tools');
  });
});
