import { afterAll, describe, expect, test } from 'bun:test';
import { cleanupTempDirs, gdn } from './helpers.ts';

afterAll(cleanupTempDirs);

const commandHelp: [string, string][] = [
  ['validate --help', 'Usage: gdn validate [DIR] [--format text|json] [--bundle DIR]'],
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

  test('an unknown command exits 2 and names the commands', async () => {
    const result = await gdn(['deploy']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toStartWith("gdn: unknown command 'deploy'. Commands: validate, tools, run, chat, trace");
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stdout).toBe('');
  });

  test('gdn tools with no subcommand shows its usage and exits 2', async () => {
    const result = await gdn(['tools']);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toStartWith('Usage: gdn tools');
  });
});
