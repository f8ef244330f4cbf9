// gdn run / chat / ps / trace on a bundle with a Swarm: an Orchestrator in the gdn process, one real process per
// agent instance (DESIGN.md §2; spec v2.0-b §11).
import { afterAll, describe, expect, test } from 'bun:test';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  cleanupTempDirs,
  cliEnv,
  copyFixture,
  gdn,
  gdnJson,
  mainTs,
  makeTempDir,
  repoRoot,
  startGdn,
} from './helpers.ts';

afterAll(cleanupTempDirs);

interface PsJson {
  orchestrators: {
    pid: number;
    processes: { agent: string; instanceKey: string; state: string; pid: number | null; restarts: number }[];
  }[];
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(predicate: () => Promise<boolean> | boolean, timeoutMs = 30_000, what = 'condition') {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}

/** A swarm bundle: coordinator asks the worker (who may wait with slow__wait first), with the given worker script. */
function swarmYaml(options: { workerScript: object[]; coordinatorScript?: object[] }): string {
  const coordinatorScript = options.coordinatorScript ?? [
    { toolCalls: [{ name: 'agents__request', args: { target: 'worker', input: 'do the work' } }] },
    { text: 'The worker is done.' },
  ];
  const documents = [
    {
      kind: 'Swarm',
      metadata: { name: 'team' },
      spec: { entryAgent: 'Agent/coordinator', agents: ['Agent/coordinator', 'Agent/worker'] },
    },
    {
      kind: 'Agent',
      metadata: { name: 'coordinator' },
      spec: { modelConfig: { modelRef: 'Model/c' }, tools: ['Tool/agents'] },
    },
    {
      kind: 'Agent',
      metadata: { name: 'worker' },
      spec: { modelConfig: { modelRef: 'Model/w' }, tools: ['Tool/slow', 'Tool/calc'] },
    },
    { kind: 'Model', metadata: { name: 'c' }, spec: { provider: 'scripted', model: 'c', script: coordinatorScript } },
    {
      kind: 'Model',
      metadata: { name: 'w' },
      spec: { provider: 'scripted', model: 'w', script: options.workerScript },
    },
    {
      kind: 'Tool',
      metadata: { name: 'slow' },
      spec: {
        entry: './tools/slow.ts',
        timeoutMs: 60000,
        exports: [
          { name: 'wait', parameters: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] } },
        ],
      },
    },
    { kind: 'Tool', metadata: { name: 'calc' }, spec: { entry: './tools/calc.ts', exports: [{ name: 'add' }] } },
  ];
  return documents.map((document) => JSON.stringify({ apiVersion: 'goondan.ai/v1', ...document })).join('\n---\n');
}

/** A temp bundle with the CLI fixture's tools and the given swarm. */
async function swarmBundle(options: Parameters<typeof swarmYaml>[0]): Promise<string> {
  const dir = await copyFixture('agent');
  await writeFile(join(dir, 'goondan.yaml'), swarmYaml(options));
  return dir;
}

async function ps(bundle: string): Promise<PsJson> {
  return (await gdnJson<PsJson>(['ps', '--bundle', bundle, '--json'])).json;
}

async function agentPids(bundle: string, count: number): Promise<number[]> {
  let pids: number[] = [];
  await waitFor(
    async () => {
      const state = await ps(bundle);
      pids = (state.orchestrators[0]?.processes ?? []).map((process) => process.pid ?? 0).filter((pid) => pid > 0);
      return pids.length === count;
    },
    30_000,
    `${count} agent processes in gdn ps`,
  );
  return pids;
}

describe('gdn run with a Swarm', () => {
  test('the example swarm: coordinator delegates and notifies, worker tool calls show with its name; trace spans both', async () => {
    const bundle = await makeTempDir('gdn-example-swarm-');
    // Leave out state a local run of the example may have left behind.
    await cp(join(repoRoot, 'examples', 'swarm'), bundle, {
      recursive: true,
      filter: (source) => !source.includes('.goondan'),
    });
    const result = await gdn(['run', '--bundle', bundle, '--input', 'Summarise our architecture']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("Here is the worker's summary");
    expect(result.stderr).toMatch(/^ {2}⚙ agents__request .*\n {2}↳ agents__request ok (?:\d+ms|[\d.]+s)\n/);
    expect(result.stderr).toContain('  ↳ agents__send ok');
    expect(result.stderr).toMatch(/\[worker\] {2}↳ file-system__write ok/);
    expect(await readFile(join(bundle, '.goondan', 'workspaces', 'worker', 'default', 'log.txt'), 'utf8')).toBe(
      'Summary delivered to the user.\n',
    );
    const trace = await gdn(['trace', '--bundle', bundle, '--limit', '1']);
    expect(trace.stdout).toMatch(/tool agents__request {2}ok .*\n.*└─ turn worker {2}ok/);
    expect(trace.stdout).toMatch(/tool agents__send {2}ok .*\n.*└─ turn worker {2}ok/);
    const after = await gdn(['ps', '--bundle', bundle]);
    expect(after.stdout).toBe(`No orchestrator running for ${bundle}.\n`);
  });

  test('--json prints the entry turn and its tool calls; stderr stays empty', async () => {
    const bundle = await swarmBundle({ workerScript: [{ text: 'done' }] });
    const { result, json } = await gdnJson(['run', '--bundle', bundle, '--input', 'go', '--json']);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe('');
    expect(json).toMatchObject({
      agent: 'coordinator',
      instanceKey: 'default',
      status: 'completed',
      text: 'The worker is done.',
      toolCalls: [{ toolName: 'agents__request', status: 'ok' }],
    });
  });

  test('SIGTERM mid-turn: every agent finishes its current turn, then gdn exits 143 and no agent process is left', async () => {
    const bundle = await swarmBundle({
      // Long enough that `gdn ps` (a process of its own) sees both agents before the wait ends on a loaded machine.
      workerScript: [{ toolCalls: [{ name: 'slow__wait', args: { ms: 5000 } }] }, { text: 'waited' }],
    });
    const run = startGdn(['run', '--bundle', bundle, '--input', 'go']);
    await run.waitForStderr('[worker]  ⚙ slow__wait', 30_000);
    const pids = await agentPids(bundle, 2);
    run.proc.kill('SIGTERM');
    const result = await run.finish();
    expect(result.exitCode).toBe(143);
    // The turns in progress completed: the worker's wait and the coordinator's final reply.
    expect(result.stderr).toMatch(/\[worker\] {2}↳ slow__wait ok/);
    expect(result.stdout).toBe('The worker is done.\n');
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
    expect((await ps(bundle)).orchestrators).toEqual([]);
  });

  test('the end of a run says it waits for a sent event; Ctrl-C then stops it, keeping the event', async () => {
    const bundle = await swarmBundle({
      coordinatorScript: [
        { toolCalls: [{ name: 'agents__send', args: { target: 'worker', input: 'note this' } }] },
        { text: 'Sent.' },
      ],
      // The send's turn does not end by itself: the end of the run waits for it (the drain, up to 30 s).
      workerScript: [{ toolCalls: [{ name: 'slow__wait', args: { ms: 600_000 } }] }, { text: 'noted' }],
    });
    const run = startGdn(['run', '--bundle', bundle, '--input', 'go', '--grace', '500']);
    await run.waitForStderr('waiting up to 30 s for 1 sent event(s) to be handled', 30_000);
    const pids = await agentPids(bundle, 2);
    run.proc.kill('SIGINT');
    const result = await run.finish();
    expect(result.exitCode).toBe(130);
    expect(result.stdout).toBe('Sent.\n');
    expect(result.stderr).toContain("1 sent event(s) not handled yet; kept in their target's inbox for the next run.");
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
  });

  test('a second gdn run while the entry agent is busy says E_INSTANCE_BUSY once (no lifecycle line of its own agent)', async () => {
    const bundle = await swarmBundle({
      workerScript: [{ toolCalls: [{ name: 'slow__wait', args: { ms: 20000 } }] }, { text: 'waited' }],
    });
    const first = startGdn(['run', '--bundle', bundle, '--input', 'go']);
    try {
      await first.waitForStderr('[worker]  ⚙ slow__wait', 30_000);
      const second = await gdn(['run', '--bundle', bundle, '--input', 'again']);
      expect(second.exitCode).toBe(1);
      expect(second.stderr.match(/^E_INSTANCE_BUSY /gm)).toHaveLength(1);
      expect(second.stderr.match(/could not start/g)).toHaveLength(1);
      expect(second.stderr).not.toContain('[coordinator/default]');
      expect(second.stderr).toContain('is in use by pid');
      // The command ends: no restart is announced that never comes.
      expect(second.stderr).not.toContain('Restarting in');
    } finally {
      first.proc.kill('SIGKILL');
      await first.finish();
    }
  });

  test('--grace bounds the shutdown: an agent still in its turn past it is killed and said so', async () => {
    // The worker would wait two minutes, past the test's own timeout: only the 200 ms grace can end the run.
    const bundle = await swarmBundle({ workerScript: [{ toolCalls: [{ name: 'slow__wait', args: { ms: 120000 } }] }] });
    const run = startGdn(['run', '--bundle', bundle, '--input', 'go', '--grace', '200']);
    await run.waitForStderr('[worker]  ⚙ slow__wait', 30_000);
    const pids = await agentPids(bundle, 2);
    run.proc.kill('SIGTERM');
    const result = await run.finish();
    expect(result.exitCode).toBe(143);
    expect(result.stderr).toContain('[worker/default] did not stop within the grace period; killed');
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
  });

  test('a second Ctrl-C kills the agents at once: exit 130, no agent process left', async () => {
    const bundle = await swarmBundle({ workerScript: [{ toolCalls: [{ name: 'slow__wait', args: { ms: 30000 } }] }] });
    const run = startGdn(['run', '--bundle', bundle, '--input', 'go']);
    await run.waitForStderr('[worker]  ⚙ slow__wait', 30_000);
    const pids = await agentPids(bundle, 2);
    const started = Date.now();
    run.proc.kill('SIGINT');
    await Bun.sleep(100);
    run.proc.kill('SIGINT');
    const result = await run.finish();
    expect(result.exitCode).toBe(130);
    expect(Date.now() - started).toBeLessThan(15_000); // the worker would sleep 30 s
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
  });

  test('--watch restarts only the agent whose resources changed; gdn ps shows states, pids and restarts', async () => {
    const bundle = await swarmBundle({ workerScript: [{ text: 'first version' }] });
    const run = startGdn(['run', '--bundle', bundle, '--input', 'go', '--watch']);
    await run.waitForStderr('[watch] watching', 30_000);
    const before = await ps(bundle);
    const table = await gdn(['ps', '--bundle', bundle]);
    expect(table.stdout).toMatch(/AGENT +INSTANCE +STATE +PID +QUEUE +TURNS +RESTARTS/);
    expect(table.stdout).toMatch(/coordinator +default +ready +\d+ +0 +1 +0/);
    await writeFile(join(bundle, 'goondan.yaml'), swarmYaml({ workerScript: [{ text: 'second version' }] }));
    await run.waitForStderr('[watch] reloaded: restarted worker/default', 30_000);
    await waitFor(
      async () => (await ps(bundle)).orchestrators[0]?.processes[1]?.state === 'ready',
      8000,
      'the new worker',
    );
    const after = await ps(bundle);
    const [coordinatorBefore, workerBefore] = before.orchestrators[0]!.processes;
    const [coordinatorAfter, workerAfter] = after.orchestrators[0]!.processes;
    expect(coordinatorAfter!.pid).toBe(coordinatorBefore!.pid);
    expect(workerAfter!.pid).not.toBe(workerBefore!.pid);
    expect(workerAfter!.restarts).toBe(1);
    run.proc.kill('SIGTERM');
    const result = await run.finish();
    expect(result.exitCode).toBe(143);
    expect(result.stdout).toBe('The worker is done.\n');
    for (const pid of [coordinatorAfter!.pid!, workerAfter!.pid!, workerBefore!.pid!]) expect(isAlive(pid)).toBe(false);
    expect((await gdn(['ps', '--bundle', bundle])).stdout).toStartWith('No orchestrator running');
  });
});

describe('gdn chat and gdn ps with a Swarm', () => {
  test('chat talks to the entry agent through the orchestrator', async () => {
    const bundle = await swarmBundle({ workerScript: [{ text: 'ok' }] });
    const result = await gdn(['chat', '--bundle', bundle], { stdin: 'hello\n' });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(
      / {2}⚙ agents__request .*\n {2}↳ agents__request ok (?:\d+ms|[\d.]+s)\ncoordinator> The worker is done\.\n$/,
    );
  });

  test("Ctrl-C during a chat turn cancels the entry agent's turn; leaving shuts the swarm down", async () => {
    const bundle = await swarmBundle({ workerScript: [{ toolCalls: [{ name: 'slow__wait', args: { ms: 30000 } }] }] });
    const chat = Bun.spawn([process.execPath, mainTs, 'chat', '--bundle', bundle, '--grace', '300'], {
      env: cliEnv(),
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
    });
    let stdout = '';
    const reading = (async () => {
      for await (const chunk of chat.stdout) stdout += new TextDecoder().decode(chunk);
    })();
    chat.stdin.write('go\n');
    chat.stdin.flush();
    await waitFor(() => stdout.includes('[worker]  ⚙ slow__wait'), 30_000, 'the worker to start waiting');
    const pids = await agentPids(bundle, 2);
    chat.kill('SIGINT');
    await waitFor(() => stdout.includes('(turn cancelled)'), 30_000, 'the cancelled turn');
    chat.stdin.end();
    expect(await chat.exited).toBe(0);
    await reading;
    expect(stdout).toContain('↳ agents__request error E_TOOL_ABORTED');
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
  });

  test('ps ignores and removes the state file of an orchestrator that is gone', async () => {
    const bundle = await swarmBundle({ workerScript: [] });
    const dir = join(bundle, '.goondan', 'orchestrator');
    const gone = Bun.spawn(['true']);
    await gone.exited;
    const file = join(dir, `${gone.pid}.json`);
    await Bun.write(
      file,
      JSON.stringify({
        pid: gone.pid,
        bundleDir: bundle,
        swarm: 'team',
        instanceKey: 'default',
        startedAt: 0,
        updatedAt: 0,
        processes: [],
      }),
    );
    const result = await gdn(['ps', '--bundle', bundle]);
    expect(result.stdout).toBe(`No orchestrator running for ${bundle}.\n`);
    expect(await Bun.file(file).exists()).toBe(false);
  });
});
