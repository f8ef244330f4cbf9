// Crash isolation, restart with backoff, graceful shutdown, no orphans, reload — with real agent processes
// (DESIGN.md §2, §5; spec v2.0-b §11.2 shutdown / shutdown_ack).
import { afterAll, afterEach, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  ConversationStore,
  instancePaths,
  loadBundle,
  openInstanceDatabase,
  readOrchestratorStates,
  resolveSwarm,
} from '@goondan/core';
import {
  baseDir,
  isAlive,
  removeTempDirs,
  type StartedSwarm,
  startSwarm,
  swarmBundleDir,
  swarmYaml,
  waitFor,
} from './swarm-fixture.ts';
import { stopNatsServer, transportCases, useTransport } from './swarm-transports.ts';

let swarm: StartedSwarm | undefined;

afterEach(async () => {
  if (!swarm) return;
  const { orchestrator, pids } = swarm;
  swarm = undefined;
  await orchestrator.shutdown({ gracePeriodMs: 1000 });
  for (const pid of pids) expect(isAlive(pid)).toBe(false);
});
afterAll(async () => {
  await removeTempDirs();
  await stopNatsServer();
});

const request = (args: object) => ({ toolCalls: [{ name: 'agents__request', args }] });
const sleep = (ms: number) => ({ toolCalls: [{ name: 'probe__sleep', args: { ms } }] });
const fastRestart = { restart: { initialMs: 50, maxMs: 1000 } };

function pidOf(started: StartedSwarm, agent: string): number | null {
  return started.orchestrator.list().find((process) => process.agent === agent)?.pid ?? null;
}

function messagesOf(dir: string, agent: string) {
  const { databaseFile } = instancePaths({ rootDir: dir, agentName: agent, instanceKey: 'default' });
  const db = openInstanceDatabase(databaseFile);
  try {
    return new ConversationStore(db).load();
  } finally {
    db.close();
  }
}

for (const kase of transportCases) {
  describe(kase.name, () => {
    useTransport(kase);

    describe('crash isolation', () => {
      test('a callee that exits mid-request fails it with E_AGENT_CRASHED at once; it restarts and serves again', async () => {
        swarm = await startSwarm(
          {
            scripts: {
              coordinator: [
                request({ target: 'worker', input: 'crash' }),
                sleep(300),
                request({ target: 'worker', input: 'again' }),
                { text: 'done' },
              ],
              worker: [{ toolCalls: [{ name: 'probe__crash-once' }] }, { text: 'recovered' }],
            },
          },
          fastRestart,
        );
        const started = Date.now();
        const result = await swarm.orchestrator.request({ input: 'go' });
        expect(result.text).toBe('done');
        expect(Date.now() - started).toBeLessThan(20_000);
        const [crashed, recovered] = swarm.toolResults('coordinator', 'agents__request');
        expect(crashed!.error!.code).toBe('E_AGENT_CRASHED');
        expect(crashed!.error!.message).toMatch(
          /worker\/default was killed \(SIGKILL\) before answering.*Restarting in 50 ms\./,
        );
        expect(recovered).toMatchObject({ status: 'ok', output: { text: 'recovered' } });
        const worker = swarm.orchestrator.list().find((process) => process.agent === 'worker')!;
        expect(worker).toMatchObject({ state: 'ready', restarts: 1, lastExit: { code: null, signal: 'SIGKILL' } });
        // Two worker processes in all: the one that crashed is gone, the coordinator never restarted.
        expect([...swarm.pids].filter(isAlive)).toHaveLength(2);
        expect(swarm.orchestrator.list().find((process) => process.agent === 'coordinator')!.restarts).toBe(0);
      });

      test("an error thrown from a tool's own timer fails that call with E_TOOL; the agent process lives on", async () => {
        swarm = await startSwarm({
          scripts: {
            coordinator: [request({ target: 'worker', input: 'explode' }), { text: 'survived' }],
            worker: [{ toolCalls: [{ name: 'probe__explode' }] }, { text: 'the worker kept going' }],
          },
        });
        const workerPid = (await swarm.orchestrator.spawn('worker')).pid;
        const result = await swarm.orchestrator.request({ input: 'go' });
        expect(result.text).toBe('survived');
        const [exploded] = swarm.toolResults('worker', 'probe__explode');
        expect(exploded!.error).toMatchObject({ code: 'E_TOOL' });
        expect(exploded!.error!.message).toContain('uncaught explosion');
        expect(swarm.toolResults('coordinator', 'agents__request')[0]!.status).toBe('ok');
        expect(pidOf(swarm, 'worker')).toBe(workerPid);
        expect(swarm.orchestrator.list().find((process) => process.agent === 'worker')!.restarts).toBe(0);
      });

      test('a process killed from outside is restarted; the others keep their pids', async () => {
        swarm = await startSwarm({ scripts: { coordinator: [], worker: [] } }, fastRestart);
        const [coordinator, worker] = await Promise.all([
          swarm.orchestrator.spawn('coordinator'),
          swarm.orchestrator.spawn('worker'),
        ]);
        process.kill(worker.pid!, 'SIGKILL');
        await waitFor(
          () => swarm!.orchestrator.list()[1]!.restarts === 1 && swarm!.orchestrator.list()[1]!.state === 'ready',
        );
        const after = swarm.orchestrator.list();
        expect(after[1]!.lastExit).toMatchObject({ signal: 'SIGKILL' });
        expect(after[1]!.pid).not.toBe(worker.pid);
        expect(after[0]!.pid).toBe(coordinator.pid);
        expect(isAlive(worker.pid!)).toBe(false);
      });

      test('a process that cannot start fails requests with its own code and shows crash-loop with growing backoff', async () => {
        const crashes: string[] = [];
        swarm = await startSwarm(
          {
            scripts: { coordinator: [], worker: [] },
            agentSpecs: { worker: { modelConfig: { modelRef: 'Model/keyless' } } },
            extraDocuments: [
              {
                apiVersion: 'goondan.ai/v1',
                kind: 'Model',
                metadata: { name: 'keyless' },
                spec: {
                  provider: 'openai',
                  model: 'gpt-4o-mini',
                  apiKey: { valueFrom: { env: 'GDN_TEST_MISSING_KEY' } },
                },
              },
            ],
          },
          {
            restart: { initialMs: 50, maxMs: 200, crashLoopCrashes: 3 },
            onLifecycle: (event) => {
              if (event.type === 'crashed') crashes.push(event.message);
            },
          },
        );
        // The user is not promised a restart: its command may end before it (gdn run said "Restarting in 200 ms."
        // and exited). The lifecycle's crash line says it.
        const failed = await swarm.orchestrator.request({ input: 'hi', target: 'worker' }).catch((error) => error);
        expect(failed).toMatchObject({ code: 'E_MODEL_API_KEY_MISSING' });
        expect(failed.message).toMatch(/could not start: .*GDN_TEST_MISSING_KEY.*\.$/);
        expect(failed.message).not.toContain('Restarting in');
        await waitFor(() => swarm!.orchestrator.list()[0]!.state === 'crash-loop', 30_000, 'crash-loop');
        const worker = swarm.orchestrator.list()[0]!;
        expect(crashes[0]).toMatch(/could not start: .* Restarting in 50 ms\.$/);
        expect(worker.restarts).toBeGreaterThanOrEqual(2);
        expect(worker.nextRestartAt).toBeGreaterThan(Date.now() - 10);
        // While it waits for its next restart, requests fail fast instead of queueing.
        await expect(swarm.orchestrator.request({ input: 'hi', target: 'worker' })).rejects.toMatchObject({
          code: 'E_AGENT_CRASHED',
          message: expect.stringContaining('crash loop'),
        });
      });
    });

    describe('idle processes (idleStopMs)', () => {
      test('an instance idle that long is stopped, and its next event starts it again with its conversation', async () => {
        const stopped: string[] = [];
        swarm = await startSwarm(
          {
            scripts: {
              coordinator: [request({ target: 'worker', input: 'Sleep a little.' }), { text: 'asked' }],
              worker: [sleep(50), { text: 'slept' }],
            },
          },
          { idleStopMs: 400, onLifecycle: (event) => event.type === 'stopped' && stopped.push(event.agent) },
        );
        const first = await swarm.orchestrator.request({ input: 'Go.' });
        expect(first.text).toBe('asked');
        const firstPid = pidOf(swarm, 'coordinator');
        // Both go quiet; each is stopped (not crashed: no restart is planned).
        await waitFor(() => stopped.length === 2, 30_000, 'both idle processes to stop');
        expect(swarm.orchestrator.list().map((process) => [process.agent, process.state])).toEqual([
          ['coordinator', 'stopped'],
          ['worker', 'stopped'],
        ]);
        expect(isAlive(firstPid!)).toBe(false);
        // The next event starts the coordinator again, and it goes on from its stored conversation.
        const second = await swarm.orchestrator.request({ input: 'Again.' });
        expect(second.text).toBe('asked');
        expect(pidOf(swarm, 'coordinator')).not.toBe(firstPid);
        await swarm.orchestrator.shutdown({ gracePeriodMs: 2000 });
        expect(messagesOf(swarm.dir, 'coordinator').filter((message) => message.data.role === 'user')).toHaveLength(2);
        expect(messagesOf(swarm.dir, 'worker').filter((message) => message.data.role === 'user')).toHaveLength(2);
      });

      test('a process in a turn is not stopped, however long the turn takes; it is once the turn is over', async () => {
        const stopped: string[] = [];
        swarm = await startSwarm(
          { scripts: { coordinator: [sleep(900), { text: 'done' }], worker: [{ text: 'idle' }] } },
          { idleStopMs: 300, onLifecycle: (event) => event.type === 'stopped' && stopped.push(event.agent) },
        );
        // The turn sleeps three idle periods: the process stays.
        expect((await swarm.orchestrator.request({ input: 'Sleep.' })).text).toBe('done');
        expect(stopped).toEqual([]);
        await waitFor(() => stopped.length === 1, 30_000, 'the process to stop once idle');
        expect(stopped).toEqual(['coordinator']);
      });
    });

    describe('a limit on processes (maxProcesses)', () => {
      const stateOf = (started: StartedSwarm, agent: string, instanceKey: string) =>
        started.orchestrator.list().find((p) => p.agent === agent && p.instanceKey === instanceKey)?.state;

      test('an instance beyond the limit waits; the least recently active idle process stops to make room', async () => {
        const stopped: string[] = [];
        swarm = await startSwarm(
          { scripts: { coordinator: [{ text: 'hello' }], worker: [{ text: 'idle' }] } },
          {
            maxProcesses: 2,
            onLifecycle: (event) => event.type === 'stopped' && stopped.push(`${event.agent}/${event.instanceKey}`),
          },
        );
        const orchestrator = swarm.orchestrator;
        expect((await orchestrator.request({ input: 'one', instanceKey: 'a' })).text).toBe('hello');
        expect((await orchestrator.request({ input: 'two', instanceKey: 'b' })).text).toBe('hello');
        // Two processes: a third instance waits; a (the least recently active, idle) is asked and stops.
        const third = await orchestrator.request({ input: 'three', instanceKey: 'c' });
        expect(third.text).toBe('hello');
        expect(stopped).toEqual(['coordinator/a']);
        expect(stateOf(swarm, 'coordinator', 'a')).toBe('stopped');
        expect(stateOf(swarm, 'coordinator', 'b')).toBe('ready');
        expect(stateOf(swarm, 'coordinator', 'c')).toBe('ready');
        expect(orchestrator.list().filter((p) => p.pid !== null)).toHaveLength(2);
        // a comes back (b makes room now) and goes on from its stored conversation.
        await orchestrator.request({ input: 'four', instanceKey: 'a' });
        expect(stopped).toEqual(['coordinator/a', 'coordinator/b']);
        const { databaseFile } = instancePaths({ rootDir: swarm.dir, agentName: 'coordinator', instanceKey: 'a' });
        const db = openInstanceDatabase(databaseFile);
        try {
          const users = new ConversationStore(db).load().filter((message) => message.data.role === 'user');
          expect(users.map((message) => JSON.stringify(message.data.content))).toEqual([
            expect.stringContaining('one'),
            expect.stringContaining('four'),
          ]);
        } finally {
          db.close();
        }
      });

      test('a process in a turn is not stopped for room: the waiting instance starts once that turn is over', async () => {
        const stopped: string[] = [];
        swarm = await startSwarm(
          { scripts: { coordinator: [sleep(700), { text: 'slept' }], worker: [{ text: 'idle' }] } },
          {
            maxProcesses: 1,
            onLifecycle: (event) => event.type === 'stopped' && stopped.push(`${event.agent}/${event.instanceKey}`),
          },
        );
        const orchestrator = swarm.orchestrator;
        const ends: string[] = [];
        const first = orchestrator.request({ input: 'sleep', instanceKey: 'a' }).then((reply) => {
          ends.push('a');
          return reply;
        });
        await waitFor(() =>
          swarm!.notifications.some((n) => n.instanceKey === 'a' && n.event.type === 'runtime.tool.start'),
        );
        const second = orchestrator.request({ input: 'sleep too', instanceKey: 'b' }).then((reply) => {
          ends.push('b');
          return reply;
        });
        await waitFor(() => stateOf(swarm!, 'coordinator', 'b') === 'waiting', 10_000, 'b to wait for a place');
        expect(stateOf(swarm, 'coordinator', 'a')).toBe('ready');
        expect((await first).text).toBe('slept');
        expect((await second).text).toBe('slept');
        expect(ends).toEqual(['a', 'b']);
        expect(stopped).toEqual(['coordinator/a']);
        expect(swarm.toolResults('coordinator', 'probe__sleep').map((result) => result.status)).toEqual(['ok', 'ok']);
      });

      test('a process whose tool job still runs answers busy when asked, and makes room once the job is reported', async () => {
        const stopped: string[] = [];
        swarm = await startSwarm(
          {
            scripts: {
              coordinator: [
                { toolCalls: [{ name: 'probe__job', args: { ms: 800 } }] },
                { text: 'started' },
                { text: 'reported' },
              ],
              worker: [{ text: 'idle' }],
            },
          },
          {
            maxProcesses: 1,
            onLifecycle: (event) => event.type === 'stopped' && stopped.push(`${event.agent}/${event.instanceKey}`),
          },
        );
        const orchestrator = swarm.orchestrator;
        expect((await orchestrator.request({ input: 'start a job', instanceKey: 'a' })).text).toBe('started');
        const second = orchestrator.request({ input: 'hello', instanceKey: 'b' });
        await waitFor(() => stateOf(swarm!, 'coordinator', 'b') === 'waiting', 10_000, 'b to wait for a place');
        // a has nothing on its way from the orchestrator, but its job runs: it is not stopped (the result would be lost).
        expect((await second).text).toBe('started');
        expect(stopped).toEqual(['coordinator/a']);
        const { databaseFile } = instancePaths({ rootDir: swarm.dir, agentName: 'coordinator', instanceKey: 'a' });
        const db = openInstanceDatabase(databaseFile);
        try {
          const texts = new ConversationStore(db).load().map((message) => JSON.stringify(message.data.content));
          expect(texts.at(-1)).toContain('reported');
        } finally {
          db.close();
        }
      });

      test("an agent's own request starts its target beyond the limit (waiting could deadlock the chain)", async () => {
        swarm = await startSwarm(
          {
            scripts: {
              coordinator: [request({ target: 'worker', input: 'work' }), { text: 'worker answered' }],
              worker: [{ text: 'done' }],
            },
          },
          { maxProcesses: 1 },
        );
        expect((await swarm.orchestrator.request({ input: 'go' })).text).toBe('worker answered');
        expect(swarm.toolResults('coordinator', 'agents__request')[0]).toMatchObject({ status: 'ok' });
        expect(swarm.orchestrator.list().map((p) => [p.agent, p.state])).toEqual([
          ['coordinator', 'ready'],
          ['worker', 'ready'],
        ]);
      });
    });

    describe('graceful shutdown', () => {
      test('mid-turn: running turns finish and ack, queued events are refused with E_AGENT_SHUTTING_DOWN', async () => {
        swarm = await startSwarm({
          scripts: {
            coordinator: [request({ target: 'worker', input: 'work' }), { text: 'worker finished' }],
            worker: [sleep(400), { text: 'finished the work' }],
          },
        });
        const turn = swarm.orchestrator.request({ input: 'go' });
        await waitFor(() =>
          swarm!.notifications.some((n) => n.agent === 'worker' && n.event.type === 'runtime.tool.start'),
        );
        const queued = swarm.orchestrator.request({ input: 'one more', target: 'worker' }).catch((error) => error);
        const report = await swarm.orchestrator.shutdown({ gracePeriodMs: 5000, reason: 'test' });
        expect(report).toEqual({ acked: ['coordinator/default', 'worker/default'], killed: [] });
        expect((await turn).text).toBe('worker finished');
        expect(await queued).toMatchObject({ code: 'E_AGENT_SHUTTING_DOWN' });
        const last = messagesOf(swarm.dir, 'worker').at(-1)!;
        expect(last.data).toMatchObject({ role: 'assistant' });
        expect(JSON.stringify(last.data.content)).toContain('finished the work');
        for (const pid of swarm.pids) expect(isAlive(pid)).toBe(false);
      });

      test('a turn that outlasts the grace period is killed with SIGKILL; nothing survives', async () => {
        swarm = await startSwarm({
          scripts: {
            coordinator: [request({ target: 'worker', input: 'hang' }), { text: 'x' }],
            worker: [sleep(30000)],
          },
        });
        const turn = swarm.orchestrator.request({ input: 'go' }).catch((error) => error);
        await waitFor(() =>
          swarm!.notifications.some((n) => n.agent === 'worker' && n.event.type === 'runtime.tool.start'),
        );
        const started = Date.now();
        const report = await swarm.orchestrator.shutdown({ gracePeriodMs: 300 });
        expect(Date.now() - started).toBeLessThan(15_000); // the worker would sleep 30 s
        expect(report.killed).toContain('worker/default');
        await turn;
        for (const pid of swarm.pids) expect(isAlive(pid)).toBe(false);
        // After shutdown nothing new is routed.
        await expect(swarm.orchestrator.request({ input: 'late' })).rejects.toMatchObject({
          code: 'E_AGENT_SHUTTING_DOWN',
        });
      });
    });

    describe('state and reload', () => {
      test('the state file shows every process while the orchestrator runs, and goes away with it', async () => {
        const stateDir = join(await swarmBundleDir({ scripts: { coordinator: [] } }), '.state');
        swarm = await startSwarm({ scripts: { coordinator: [], worker: [] } }, { stateDir, stateFile: undefined });
        await swarm.orchestrator.spawn('worker');
        const dir = join(stateDir, 'orchestrator');
        await waitFor(
          () => readOrchestratorStates(dir).live[0]?.processes[0]?.state === 'ready',
          30_000,
          'the state file',
        );
        const [snapshot] = readOrchestratorStates(dir).live;
        expect(snapshot).toMatchObject({ pid: process.pid, swarm: 'team', instanceKey: 'default' });
        expect(snapshot!.processes[0]).toMatchObject({
          agent: 'worker',
          state: 'ready',
          queueDepth: 0,
          turnsServed: 0,
        });
        await swarm.orchestrator.shutdown();
        expect(existsSync(join(dir, `${process.pid}.json`))).toBe(false);
      });

      test('reload restarts only the agents whose resources changed; their conversations are kept', async () => {
        const spec = {
          scripts: {
            coordinator: [
              request({ target: 'worker', input: 'first' }),
              { text: 'one' },
              request({ target: 'worker', input: 'second' }),
              { text: 'two' },
            ],
            worker: [{ text: 'old script' }],
          },
        };
        swarm = await startSwarm(spec);
        await swarm.orchestrator.request({ input: 'go' });
        const before = swarm.orchestrator.list();
        await writeFile(
          join(swarm.dir, 'goondan.yaml'),
          swarmYaml({ ...spec, scripts: { ...spec.scripts, worker: [{ text: 'new script' }] } }),
        );
        const { bundle } = await loadBundle({ dir: swarm.dir, libraries: [baseDir] });
        expect(swarm.orchestrator.reload(bundle!, resolveSwarm(bundle!)!)).toEqual({
          restarted: ['worker/default'],
          stopped: [],
        });
        await waitFor(
          () =>
            swarm!.orchestrator.list()[1]!.state === 'ready' && swarm!.orchestrator.list()[1]!.pid !== before[1]!.pid,
        );
        await swarm.orchestrator.request({ input: 'again' });
        const after = swarm.orchestrator.list();
        expect(after[0]!.pid).toBe(before[0]!.pid);
        expect(after[1]).toMatchObject({ restarts: 1, state: 'ready' });
        const replies = swarm
          .toolResults('coordinator', 'agents__request')
          .map((result) => (result.output as { text: string }).text);
        expect(replies).toEqual(['old script', 'new script']);
        await swarm.orchestrator.shutdown();
        // The restarted worker resumed its conversation: the first exchange is still there, then the second.
        const texts = messagesOf(swarm.dir, 'worker').map((message) => JSON.stringify(message.data.content));
        expect(texts.join('\n')).toContain('old script');
        expect(texts.at(-1)).toContain('new script');
        expect(texts).toHaveLength(4);
      });
    });
  });
}

// The orchestrator's own process dies: a test of the IPC transport (a NATS worker's side is in nats-transport.test.ts).
describe('no orphans', () => {
  test('no orphans: agent processes exit when their orchestrator is killed with SIGKILL', async () => {
    const dir = await swarmBundleDir({ scripts: { coordinator: [], worker: [] } });
    const host = Bun.spawn(
      [process.execPath, resolve(import.meta.dir, '__fixtures__', 'orchestrator-host.ts'), dir, baseDir],
      {
        stdout: 'pipe',
        stderr: 'inherit',
      },
    );
    const reader = host.stdout.getReader();
    const { value } = await reader.read();
    const pids = JSON.parse(new TextDecoder().decode(value).split('\n')[0]!) as number[];
    expect(pids.every(isAlive)).toBe(true);
    host.kill('SIGKILL');
    await host.exited;
    await waitFor(() => !pids.some(isAlive), 30_000, 'the orphaned agent processes to exit');
  });
});
