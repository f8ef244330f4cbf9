import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { agentBundle, cleanupTempDirs, cliEnv, editBundle, launcher, repoRoot, scriptedModel } from './helpers.ts';
import { isRunning, killAll, survivors, waitFor, waitForPids } from './process-helpers.ts';

afterAll(cleanupTempDirs);

/** node_modules/.bin/gdn: the symlink npm makes, which the command must see through to find itself. */
const installed = join(repoRoot, 'node_modules', '.bin', 'gdn');

async function launch(args: string[], cwd = repoRoot) {
  const proc = Bun.spawn([installed, ...args], { cwd, env: cliEnv(), stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  return { exitCode: proc.exitCode, signalCode: proc.signalCode, stdout, stderr };
}

/** An agent bundle whose model calls bash__exec once with `command`, with restricted tools allowed. */
async function bashBundle(command: string): Promise<string> {
  const bundle = await agentBundle(
    scriptedModel([{ toolCalls: [{ name: 'bash__exec', args: { command, timeoutMs: 600000 } }] }, { text: 'done' }]),
  );
  await editBundle(bundle, (text) =>
    text.replace('  tools:\n    - Tool/calc', '  permissions:\n    restricted: allow\n  tools:\n    - Tool/calc'),
  );
  return bundle;
}

describe('the gdn command (bin/gdn)', () => {
  test('node_modules/.bin/gdn --help runs the CLI on the npm-installed Bun and exits 0', async () => {
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

  test('is Bun itself (no launcher process): a SIGTERM ends it with SIGTERM', async () => {
    const bundle = await agentBundle(
      scriptedModel([{ toolCalls: [{ name: 'slow__wait', args: { ms: 10000 } }] }, { text: 'never' }]),
    );
    const proc = Bun.spawn([launcher, 'run', '--bundle', bundle, '--input', 'wait'], {
      env: cliEnv(),
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const marker = join(bundle, '.goondan', 'workspaces', 'helper', 'default', '.slow-started');
    expect(await waitFor(() => existsSync(marker))).toBe(true);
    // The tool runs in the process we started: nothing stands between the caller and Bun.
    expect(Number(await Bun.file(marker).text())).toBe(proc.pid);
    proc.kill('SIGTERM');
    await proc.exited;
    expect(proc.signalCode).toBe('SIGTERM');
  });

  test('kill -9 of gdn mid-call leaves nothing running: not Bun, the command, its jobs or setsid children', async () => {
    // The command lists its own pid, a background job and a setsid escapee (a session of its own), then waits.
    const bundle = await bashBundle(
      'echo $$ > pids; sleep 1000 & echo $! >> pids; setsid sleep 1000 & echo $! >> pids; wait',
    );
    const proc = Bun.spawn([installed, 'run', '--bundle', bundle, '--input', 'go'], {
      env: cliEnv(),
      stdout: 'ignore',
      stderr: 'pipe',
    });
    const pids = await waitForPids(join(bundle, '.goondan', 'workspaces', 'helper', 'default', 'pids'), 3);
    try {
      expect(pids.every(isRunning)).toBe(true);
      process.kill(proc.pid, 'SIGKILL');
      await proc.exited;
      expect(await survivors([proc.pid, ...pids])).toEqual([]);
    } finally {
      killAll(pids);
    }
  });
});
