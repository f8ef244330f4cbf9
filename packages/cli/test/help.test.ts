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
  ['validate --help', 'Usage: gdn validate [DIR] [--json | --format text|json] [--bundle DIR]'],
  ['tools --help', 'Usage: gdn tools <list|call> [options]'],
  ['tools list --help', 'Usage: gdn tools <list|call> [options]'],
  ['tools call --help', 'Usage: gdn tools <list|call> [options]'],
  ['run --help', 'Usage: gdn run --input TEXT [--agent A] [--instance K] [--user ID] [--json] [--bundle DIR]'],
  ['chat --help', 'Usage: gdn chat [--agent A] [--instance K] [--user ID] [--bundle DIR] [--swarm NAME] [--grace MS]'],
  ['trace -h', 'Usage: gdn trace [--agent A] [--instance K] [--limit N] [--json | --otlp] [--bundle DIR]'],
  ['help run', 'Usage: gdn run --input TEXT'],
];

/**
 * The flags a help text lists: every line that starts (after its indent) with `--flag`, and a second flag on such a
 * line after a wide gap or a ` / ` (`--nats-creds F   ...   --nats-nkey F`). `commonOnly` keeps those under a
 * `Common options:` heading; otherwise those are left out.
 */
function listedFlags(help: string, commonOnly: boolean): string[] {
  const flags = new Set<string>();
  for (const paragraph of help.split(/\n\s*\n/)) {
    if (paragraph.startsWith('Common options:') !== commonOnly) continue;
    for (const line of paragraph.split('\n')) {
      if (!/^\s+--[a-z]/.test(line)) continue;
      for (const match of line.matchAll(/(?:^\s+| {2,}|\/ )(--[a-z][\w-]*)/g)) flags.add(match[1]!);
    }
  }
  return [...flags];
}

/**
 * The synopsis lines of a help text: the `Usage:` line, each `gdn COMMAND ...` line of a subcommand, and the
 * indented `[...]` lines continuing either.
 */
function synopsisLines(help: string): string[] {
  const lines: string[] = [];
  let inSynopsis = false;
  for (const line of help.split('\n')) {
    inSynopsis = /^\s*(Usage: )?gdn [a-z]/.test(line) || (inSynopsis && /^\s+[[(]/.test(line));
    if (inSynopsis) lines.push(line);
  }
  return lines;
}

describe('gdn help and usage', () => {
  test("every command's help ends with its Docs link, and its Usage names every option it lists", async () => {
    const commands = await tableCommands();
    expect(commands).toContain('migrate');
    const missing: string[] = [];
    for (const command of commands) {
      const result = await gdn(['help', command]);
      expect({ command, exitCode: result.exitCode, stderr: result.stderr }).toEqual({
        command,
        exitCode: 0,
        stderr: '',
      });
      const help = result.stdout.trimEnd();
      expect({ command, last: help.split('\n').at(-1) }).toEqual({
        command,
        last: expect.stringMatching(/^Docs: https:\/\/\S+\/docs\/cli\.md#gdn-[a-z-]+$/),
      });
      const synopsis = synopsisLines(help).join('\n');
      expect({ command, usage: synopsis }).toEqual({
        command,
        usage: expect.stringMatching(new RegExp(`^Usage: gdn ${command}\\b`)),
      });
      const named = (flag: string) => new RegExp(`${flag}(?![\\w-])`).test(synopsis);
      for (const flag of listedFlags(help, false)) if (!named(flag)) missing.push(`${command} ${flag}`);
      // `[options]` in the Usage line stands for the options under "Common options:".
      const usageLine = synopsis.split('\n')[0]!;
      for (const flag of listedFlags(help, true)) {
        if (!named(flag) && !usageLine.includes('[options]')) missing.push(`${command} ${flag}`);
      }
    }
    expect(missing).toEqual([]);
  }, 120_000);

  test('gdn help NAME for a name that is no command fails as gdn NAME does: did-you-mean, its code, exit 2', async () => {
    const viaHelp = await gdn(['help', 'chta']);
    const direct = await gdn(['chta']);
    expect(viaHelp.exitCode).toBe(2);
    expect(viaHelp.stdout).toBe('');
    expect(viaHelp.stderr).toBe(direct.stderr);
    expect(viaHelp.stderr).toStartWith("gdn: unknown command 'chta'. Did you mean 'chat'?");
    expect(viaHelp.stderr).toContain('  code: E_CLI_UNKNOWN_COMMAND\n');
    const unknown = await gdn(['help', 'foo']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toStartWith("gdn: unknown command 'foo'. Commands: ");
  });

  test("a mistyped global option exits 2 as an unknown option, naming the closest of gdn's own options", async () => {
    for (const [typo, meant] of [
      ['--helpp', '--help'],
      ['--verson', '--version'],
    ]) {
      const result = await gdn([typo!]);
      expect(result.exitCode).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toStartWith(`gdn: Unknown option '${typo}'. Did you mean '${meant}'?\n`);
      expect(result.stderr).toContain('  code: E_CLI_UNKNOWN_OPTION\n');
    }
  });

  test('gdn help serve tells the exit status a signal gives, not a 0 it never returns', async () => {
    const result = await gdn(['help', 'serve']);
    expect(result.stdout).not.toContain('0 stopped');
    expect(result.stdout).toMatch(/Exit status: [^\n]*143 after SIGTERM, 130 after SIGINT/);
  });

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

  test('gdn auth with no subcommand shows its usage and exits 2, like gdn tools', async () => {
    const result = await gdn(['auth']);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toStartWith('Usage: gdn auth list');
    expect(result.stdout.trimEnd()).toEndWith('/docs/cli.md#gdn-auth');
  });

  test('gdn worker without --nats says what the flag is for, naming the command once', async () => {
    const env = cliEnv();
    delete env.GOONDAN_NATS_URL;
    const result = await gdn(['worker'], { env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toStartWith(
      'gdn worker: --nats URL is needed (or GOONDAN_NATS_URL): the NATS server the host, gdn serve --nats, uses\n',
    );
  });
});
