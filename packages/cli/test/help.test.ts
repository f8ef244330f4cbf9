import { afterAll, describe, expect, test } from 'bun:test';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../src/terminal.ts';
import { cleanupTempDirs, cliEnv, gdn, repoRoot } from './helpers.ts';

afterAll(cleanupTempDirs);

let commandTable: Promise<string[]> | undefined;
/**
 * The names in main.ts's command table, as gdn itself lists them when a command is unknown (Object.keys of the
 * table), so the checks below follow the table instead of a copy of it.
 */
function tableCommands(): Promise<string[]> {
  commandTable ??= gdn(['no-such-command']).then((result) => {
    const list = /Commands: ([a-z, -]+)\./.exec(result.stderr)?.[1];
    if (!list) throw new Error(`no command list in:\n${result.stderr}`);
    return list.split(', ');
  });
  return commandTable;
}

const subcommandRunners: Record<string, () => Promise<(argv: string[]) => Promise<number>>> = {
  tools: () => import('../src/commands/tools.ts').then((m) => m.toolsCommand),
  auth: () => import('../src/commands/auth.ts').then((m) => m.authCommand),
  schedules: () => import('../src/commands/schedules.ts').then((m) => m.schedulesCommand),
  changes: () => import('../src/commands/changes.ts').then((m) => m.changesCommand),
  mcp: () => import('../src/commands/mcp.ts').then((m) => m.mcpCommand),
  approvals: () => import('../src/commands/approvals.ts').then((m) => m.approvalsCommand),
};

/** Every command that has subcommands, a typo of one of them, and the subcommand it should suggest. */
const subcommandTypos: [string, string, string][] = [
  ['tools', 'lst', 'list'],
  ['auth', 'logni', 'login'],
  ['schedules', 'lsit', 'list'],
  ['changes', 'revrt', 'revert'],
  ['mcp', 'serv', 'serve'],
  ['approvals', 'aprove', 'approve'],
];

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

  test("gdn --help and docs/cli.md list every command of main.ts's table", async () => {
    const commands = await tableCommands();
    expect(commands).toContain('validate');
    const result = await gdn(['--help']);
    expect(result.exitCode).toBe(0);
    const reference = await readFile(join(repoRoot, 'docs', 'cli.md'), 'utf8');
    const overview = reference.slice(0, reference.indexOf('```', reference.indexOf('```') + 3));
    for (const command of commands) {
      expect(result.stdout).toMatch(new RegExp(`\\n  ${command} `));
      expect(overview).toMatch(new RegExp(`\\n  ${command} `));
    }
    expect(result.stdout).toContain('--serve');
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
      `gdn: unknown command 'chta'. Did you mean 'chat'? Commands: ${(await tableCommands()).join(', ')}.`,
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

  test('an unknown subcommand exits 2 with a did-you-mean, the code of an unknown command and a help link', async () => {
    const result = await gdn(['tools', 'lst'], {
      env: cliEnv({ GOONDAN_DOCS_URL: 'https://docs.example.test/goondan' }),
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      "gdn tools: unknown subcommand 'tools lst'. Did you mean 'tools list'? Subcommands: list, call.",
      "Run 'gdn tools --help' for usage.",
      '  code: E_CLI_UNKNOWN_COMMAND',
      '  help: https://docs.example.test/goondan/errors/E_CLI_UNKNOWN_COMMAND.md',
    ]);
    expect(result.stdout).toBe('');
  });

  test.each(subcommandTypos)('gdn %s %s suggests %s', async (command, typo, meant) => {
    // In process: each command's own check, before it opens any bundle (the spawn above covers the printing).
    const run = await subcommandRunners[command]!();
    const thrown = await run([typo]).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(thrown).toBeInstanceOf(UsageError);
    expect((thrown as UsageError).code).toBe('E_CLI_UNKNOWN_COMMAND');
    expect((thrown as UsageError).command).toBe(command);
    expect((thrown as UsageError).message).toStartWith(
      `unknown subcommand '${command} ${typo}'. Did you mean '${command} ${meant}'? Subcommands: `,
    );
  });

  test('gdn tools with no subcommand shows its usage and exits 2', async () => {
    const result = await gdn(['tools']);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toStartWith('Usage: gdn tools');
  });
});
