import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { agentBundle, cleanupTempDirs, cliEnv, gdn, launcherJs, repoRoot, scriptedModel } from './helpers.ts';

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

const node = Bun.which('node');

describe.skipIf(node === null)('the node launcher bin/gdn.js', () => {
  async function launch(args: string[], cwd = repoRoot) {
    const proc = Bun.spawn([node!, launcherJs, ...args], { cwd, env: cliEnv(), stdout: 'pipe', stderr: 'pipe' });
    const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    await proc.exited;
    return { exitCode: proc.exitCode, signalCode: proc.signalCode, stdout, stderr };
  }

  test('node packages/cli/bin/gdn.js --help runs the CLI on the npm-installed Bun and exits 0', async () => {
    const result = await launch(['--help']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toStartWith('gdn — declare tools once in YAML');
    expect(result.stdout).toContain('Usage: gdn <command> [options]');
  });

  test("passes the CLI's exit codes through", async () => {
    expect((await launch(['deploy'])).exitCode).toBe(2);
    const invalid = await launch(['validate', join(import.meta.dir, '__fixtures__', 'bad-bundle')]);
    expect(invalid.exitCode).toBe(1);
    expect(invalid.stderr).toContain('✗ 4 problems');
  });

  test('a SIGTERM stops the CLI and the launcher dies of it too (not exit 0)', async () => {
    const bundle = await agentBundle(
      scriptedModel([{ toolCalls: [{ name: 'slow__wait', args: { ms: 10000 } }] }, { text: 'never' }]),
    );
    const proc = Bun.spawn([node!, launcherJs, 'run', '--bundle', bundle, '--input', 'wait'], {
      env: cliEnv(),
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const marker = join(bundle, '.goondan', 'workspaces', 'helper', 'default', '.slow-started');
    const deadline = Date.now() + 30_000;
    while (!existsSync(marker) && Date.now() < deadline) await Bun.sleep(10);
    expect(existsSync(marker)).toBe(true);
    const bunPid = Number(await Bun.file(marker).text());
    proc.kill('SIGTERM');
    await proc.exited;
    expect(proc.signalCode).toBe('SIGTERM');
    // The Bun process it started is gone as well.
    let alive = true;
    for (let i = 0; i < 100 && alive; i++) {
      try {
        process.kill(bunPid, 0);
        await Bun.sleep(20);
      } catch {
        alive = false;
      }
    }
    expect(alive).toBe(false);
  });
});
