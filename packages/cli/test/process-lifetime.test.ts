import { afterAll, describe, expect, test } from 'bun:test';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  agentBundle,
  cleanupTempDirs,
  cliEnv,
  editBundle,
  launcher,
  makeTempDir,
  repoRoot,
  scriptedModel,
} from './helpers.ts';
import { killAll, survivors, waitForPids } from './process-helpers.ts';

afterAll(cleanupTempDirs);

const fixtureServer = join(repoRoot, 'packages', 'base', 'extensions', 'mcp', '__fixtures__', 'fixture-server.ts');

/** The agent fixture with a stdio MCP server `inner` that lists its pid and its child's in `pidFile`. */
async function mcpBundle(pidFile: string): Promise<string> {
  const bundle = await agentBundle();
  const server = {
    name: 'inner',
    command: 'sh',
    // The server leaves a child running, as servers that start helpers do: it does not go when stdin closes.
    args: [
      '-c',
      `echo $$ > '${pidFile}'; sleep 1000 < /dev/null > /dev/null 2>&1 & echo $! >> '${pidFile}'; exec '${process.execPath}' '${fixtureServer}'`,
    ],
  };
  await editBundle(bundle, (text) =>
    // A replacer function: in a replacement string, the server's `$$` would become `$`.
    text.replace(
      '  tools:\n    - Tool/calc\n',
      () =>
        `  extensions:\n    - ref: Extension/mcp\n      config: { servers: [${JSON.stringify(server)}] }\n  tools:\n    - Tool/calc\n`,
    ),
  );
  return bundle;
}

describe('tool processes end with the process that started them', () => {
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    test(`${signal} to gdn tools call during a call to a stdio MCP server ends the server and its children`, async () => {
      const pidFile = join(await makeTempDir(), 'server.pid');
      const bundle = await mcpBundle(pidFile);
      const proc = Bun.spawn(
        [launcher, 'tools', 'call', '--yes', '--bundle', bundle, 'inner__slow', JSON.stringify({ ms: 600000 })],
        { env: cliEnv(), stdout: 'ignore', stderr: 'ignore' },
      );
      const pids = await waitForPids(pidFile, 2);
      try {
        proc.kill(signal);
        await proc.exited;
        expect(proc.signalCode).toBe(signal);
        expect(await survivors(pids)).toEqual([]);
      } finally {
        killAll(pids);
      }
    });
  }

  test('kill -9 of an agent process of a Swarm ends its bash commands, setsid children included', async () => {
    const bundle = await agentBundle(
      scriptedModel([
        {
          toolCalls: [
            {
              name: 'bash__exec',
              // $PPID is the agent process; then the command, a background job and a setsid escapee.
              args: {
                command:
                  'echo $PPID > pids; echo $$ >> pids; sleep 1000 & echo $! >> pids; setsid sleep 1000 & echo $! >> pids; wait',
              },
            },
          ],
        },
        { text: 'done' },
      ]),
    );
    const swarm =
      'apiVersion: goondan.ai/v1\nkind: Swarm\nmetadata:\n  name: solo\nspec:\n  entryAgent: Agent/helper\n  agents: [Agent/helper]\n---\n';
    await editBundle(
      bundle,
      (text) =>
        swarm +
        text.replace(
          '  tools:\n    - Tool/calc',
          () => '  permissions:\n    restricted: allow\n  tools:\n    - Tool/calc',
        ),
    );
    const proc = Bun.spawn([launcher, 'run', '--bundle', bundle, '--input', 'go'], {
      env: cliEnv(),
      stdout: 'ignore',
      stderr: 'ignore',
    });
    const [agentPid, ...commandPids] = await waitForPids(
      join(bundle, '.goondan', 'workspaces', 'helper', 'default', 'pids'),
      4,
    );
    try {
      expect(agentPid).not.toBe(proc.pid);
      process.kill(agentPid!, 'SIGKILL');
      expect(await survivors(commandPids)).toEqual([]);
    } finally {
      killAll([proc.pid, ...commandPids]);
    }
  });

  test('kill -9 of gdn run ends an agent process whose tool blocks its event loop (its orphan check cannot run)', async () => {
    const bundle = await agentBundle(scriptedModel([{ toolCalls: [{ name: 'spin__forever' }] }, { text: 'done' }]));
    // Writes the agent process's pid, then never yields: no timer, IPC or disconnect handler runs in it again.
    await writeFile(
      join(bundle, 'tools', 'spin.ts'),
      [
        "import { writeFileSync } from 'node:fs';",
        'export const handlers = {',
        "  forever: (ctx: { workdir: string }) => { writeFileSync(ctx.workdir + '/pids', process.pid + '\\n'); for (;;) {} },",
        '};',
        '',
      ].join('\n'),
    );
    const spin =
      'kind: Tool\nmetadata:\n  name: spin\nspec:\n  entry: ./tools/spin.ts\n  exports:\n    - name: forever\n';
    const swarm =
      'apiVersion: goondan.ai/v1\nkind: Swarm\nmetadata:\n  name: solo\nspec:\n  entryAgent: Agent/helper\n  agents: [Agent/helper]\n---\n';
    await editBundle(
      bundle,
      (text) =>
        `${swarm}apiVersion: goondan.ai/v1\n${spin}---\n${text.replace('  tools:\n    - Tool/calc', () => '  tools:\n    - Tool/spin\n    - Tool/calc')}`,
    );
    const proc = Bun.spawn([launcher, 'run', '--bundle', bundle, '--input', 'go'], {
      env: cliEnv(),
      stdout: 'ignore',
      stderr: 'ignore',
    });
    const [agentPid] = await waitForPids(join(bundle, '.goondan', 'workspaces', 'helper', 'default', 'pids'), 1);
    try {
      expect(agentPid).not.toBe(proc.pid);
      proc.kill('SIGKILL');
      await proc.exited;
      expect(await survivors([agentPid!])).toEqual([]);
    } finally {
      killAll([proc.pid, agentPid!]);
    }
  });
});
