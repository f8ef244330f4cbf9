// The Orchestrator's routing and lifecycle with in-memory agent processes (linked transports + AgentProcessHost),
// no real processes: ordering, buffering until ready, queue depth, reconciliation. Real processes: packages/core/test.
import { afterEach, describe, expect, test } from 'bun:test';
import type { AgentEvent } from '../agent/agent-event.ts';
import type { TurnResult } from '../agent/turn-types.ts';
import type { Bundle, Resource } from '../config/resources.ts';
import { AgentProcessHost, type TurnRunner } from './agent-process-host.ts';
import { AgentsClient } from './agents-client.ts';
import { eventTypes } from './ipc-message.ts';
import { createLinkedTransports } from './linked-transports.ts';
import { Orchestrator } from './orchestrator.ts';
import type { SendInbox } from './send-inbox.ts';
import type { ProcessExit, SpawnAgentProcess } from './spawn-agent-process.ts';
import { resolveSwarm } from './swarm-topology.ts';

const location = { file: 'goondan.yaml', line: 1, column: 1, baseDir: '/tmp' };
const bundle: Bundle = {
  rootDir: '/tmp/gdn-orchestrator-unit',
  resources: new Map<string, Resource>(
    [
      { kind: 'Agent', metadata: { name: 'a' }, spec: {} },
      { kind: 'Agent', metadata: { name: 'b' }, spec: {} },
      { kind: 'Swarm', metadata: { name: 's' }, spec: { entryAgent: 'Agent/a', agents: ['Agent/a', 'Agent/b'] } },
    ].map((resource) => [
      `${resource.kind}/${resource.metadata.name}`,
      { apiVersion: 'goondan.ai/v1', location, ...resource } as Resource,
    ]),
  ),
};

function result(event: AgentEvent, text: string): TurnResult {
  return {
    turnId: `turn_${event.id}`,
    traceId: 't',
    eventId: event.id,
    status: 'completed',
    text,
    steps: 1,
    usage: { inputTokens: 0, outputTokens: 0 },
  };
}

/**
 * A runner whose turns echo their input after `delay` (milliseconds, or until the promise settles: a gate the test
 * opens), recording the order they ran in.
 */
function echoRunner(log: string[], delay: number | Promise<void> = 0): TurnRunner {
  let running = 0;
  return {
    async enqueue(event) {
      running += 1;
      log.push(`start ${event.input}${running > 1 ? ' (overlap!)' : ''}`);
      await (typeof delay === 'number' ? Bun.sleep(delay) : delay);
      running -= 1;
      log.push(`end ${event.input}`);
      return result(event, `echo ${event.input}`);
    },
    async close() {},
  };
}

/** Agent "processes" in memory: a host on one end of a linked pair, ready after `readyAfterMs`. */
function inMemorySpawn(options: {
  runner: (client: AgentsClient) => TurnRunner;
  readyAfterMs?: number;
  pid?: () => number;
}) {
  const spawned: { agent: string; exit: (exit: ProcessExit) => void }[] = [];
  const spawn: SpawnAgentProcess = ({ config }) => {
    const [parentEnd, childEnd] = createLinkedTransports();
    let resolveExit: (exit: ProcessExit) => void = () => {};
    const exited = new Promise<ProcessExit>((resolve) => {
      resolveExit = resolve;
    });
    const exit = (value: ProcessExit) => {
      childEnd.close();
      resolveExit(value);
    };
    const host = new AgentProcessHost({
      transport: childEnd,
      agent: config.agent,
      instanceKey: config.instanceKey,
      observe: false,
      exit: (code) => exit({ exitCode: code, signalCode: null }),
    });
    const client = new AgentsClient({
      transport: childEnd,
      agent: config.agent,
      instanceKey: config.instanceKey,
      bundle,
      topology: resolveSwarm(bundle)!,
    });
    const stop = childEnd.onMessage((message) => {
      if (message.type !== 'event' || message.payload.type !== eventTypes.bundle) return;
      stop();
      setTimeout(() => host.attach(options.runner(client), { client }), options.readyAfterMs ?? 0);
    });
    spawned.push({ agent: config.agent, exit });
    return {
      pid: options.pid?.() ?? process.pid,
      transport: parentEnd,
      exited,
      kill: (signal = 'SIGTERM') => exit({ exitCode: null, signalCode: signal }),
    };
  };
  return { spawn, spawned };
}

/** Waits for what the test expects to happen (not for a fixed time: a busy machine is slower); fails after 30 s. */
async function until(check: () => boolean, what = 'the condition'): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(1);
  }
}

let orchestrator: Orchestrator | undefined;
afterEach(async () => {
  await orchestrator?.shutdown({ gracePeriodMs: 100 });
  orchestrator = undefined;
});

function start(spawnProcess: SpawnAgentProcess, extra: Partial<ConstructorParameters<typeof Orchestrator>[0]> = {}) {
  orchestrator = new Orchestrator({
    inbox: null,
    bundle,
    topology: resolveSwarm(bundle)!,
    instanceKey: 'default',
    spawnProcess,
    stateFile: null,
    reconcileIntervalMs: 60_000,
    ...extra,
  });
  return orchestrator;
}

describe('Orchestrator routing', () => {
  test('events to one instance run in arrival order, one turn at a time, even when sent before it was ready', async () => {
    const log: string[] = [];
    const { spawn, spawned } = inMemorySpawn({ runner: () => echoRunner(log, 5), readyAfterMs: 30 });
    const orchestrator = start(spawn);
    const replies = ['1', '2', '3'].map((input) => orchestrator.request({ input, target: 'b' }));
    // All three wait in the orchestrator's buffer until the process is ready; one process was spawned.
    expect(orchestrator.list()).toMatchObject([{ agent: 'b', state: 'starting', queueDepth: 3 }]);
    expect((await Promise.all(replies)).map((reply) => reply.text)).toEqual(['echo 1', 'echo 2', 'echo 3']);
    expect(log).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
    expect(spawned.map((process) => process.agent)).toEqual(['b']);
    expect(orchestrator.list()).toMatchObject([{ agent: 'b', state: 'ready', queueDepth: 0, turnsServed: 3 }]);
  });

  test('queue depth counts the events waiting behind the running turn', async () => {
    const log: string[] = [];
    const gate = Promise.withResolvers<void>();
    const { spawn } = inMemorySpawn({ runner: () => echoRunner(log, gate.promise) });
    const orchestrator = start(spawn);
    await orchestrator.spawn('b');
    const replies = ['1', '2', '3'].map((input) => orchestrator.request({ input, target: 'b' }));
    await until(() => log.includes('start 1'), 'the first turn to start');
    expect(orchestrator.list()[0]!.queueDepth).toBe(2);
    gate.resolve();
    await Promise.all(replies);
    expect(orchestrator.list()[0]!.queueDepth).toBe(0);
  });

  test('a send is delivered without an answer; an unknown target fails synchronously', async () => {
    const log: string[] = [];
    const { spawn } = inMemorySpawn({ runner: () => echoRunner(log) });
    const orchestrator = start(spawn);
    expect(orchestrator.send({ input: 'fyi', target: 'b' }).eventId).toMatch(/^evt_/);
    expect(() => orchestrator.send({ input: 'x', target: 'zed' })).toThrow(
      expect.objectContaining({ code: 'E_AGENT_UNKNOWN' }),
    );
    await until(() => log.length === 2, 'the sent turn to end');
    expect(log).toEqual(['start fyi', 'end fyi']);
    expect(orchestrator.list()[0]!.turnsServed).toBe(1);
  });

  test("an agent's send answers once its inbox commit is done; one the inbox cannot store fails the call", async () => {
    const log: string[] = [];
    let diskFull = false;
    const inbox: SendInbox = {
      put() {},
      putMany(entries) {
        if (diskFull) throw new Error('disk full');
        log.push(`stored ${entries.map((entry) => entry.event.input).join(', ')}`);
      },
      stored: () => [],
      close() {},
    };
    const { spawn } = inMemorySpawn({
      runner: (client) => ({
        async enqueue(event) {
          if (event.input === 'note') return result(event, '');
          try {
            const sends = ['note', 'note'].map((input) => client.send({ target: 'b', input }));
            log.push(`sent ${(await Promise.all(sends)).length}`);
          } catch (thrown) {
            log.push(`refused ${(thrown as { code?: string }).code}`);
          }
          return result(event, 'done');
        },
        async close() {},
      }),
    });
    const orchestrator = start(spawn, { inbox });
    await orchestrator.request({ input: 'go', target: 'a' });
    diskFull = true;
    await orchestrator.request({ input: 'again', target: 'a' });
    // Both sends of a turn were stored in one commit before the caller heard of them.
    expect(log).toEqual(['stored note, note', 'sent 2', 'refused E_STORE_OPEN']);
  });
});

describe('Orchestrator cancellation', () => {
  test('aborting a request still waiting for its process ends it cancelled; it never runs', async () => {
    const log: string[] = [];
    const { spawn } = inMemorySpawn({ runner: () => echoRunner(log), readyAfterMs: 30 });
    const orchestrator = start(spawn);
    const controller = new AbortController();
    const reply = orchestrator.request({ input: 'never', target: 'b', signal: controller.signal });
    controller.abort();
    expect(await reply).toMatchObject({ status: 'cancelled', agent: 'b', instanceKey: 'default' });
    expect((await orchestrator.request({ input: 'next', target: 'b' })).text).toBe('echo next');
    expect(log).toEqual(['start next', 'end next']);
  });

  test("aborting a running request cancels the callee's turn through its signal", async () => {
    let running = false;
    const runner: TurnRunner = {
      enqueue: (event, { signal }) =>
        new Promise((resolve) => {
          running = true;
          signal?.addEventListener('abort', () => resolve({ ...result(event, ''), status: 'cancelled' }));
        }),
      close: async () => {},
    };
    const { spawn } = inMemorySpawn({ runner: () => runner });
    const orchestrator = start(spawn);
    await orchestrator.spawn('b');
    const controller = new AbortController();
    const reply = orchestrator.request({ input: 'long', target: 'b', signal: controller.signal });
    await until(() => running, 'the turn to start');
    controller.abort();
    expect(await reply).toMatchObject({ status: 'cancelled', eventId: expect.stringMatching(/^evt_/) });
  });
});

describe('Orchestrator lifecycle', () => {
  test('a process that dies without an exit event is found by reconciliation and restarted', async () => {
    // A pid that is certainly gone: a process that has already exited.
    const gone = Bun.spawn(['true']);
    await gone.exited;
    let calls = 0;
    const { spawn } = inMemorySpawn({
      runner: () => echoRunner([]),
      pid: () => (++calls === 1 ? gone.pid : process.pid),
    });
    const lifecycle: string[] = [];
    const orchestrator = start(spawn, {
      reconcileIntervalMs: 20,
      restart: { initialMs: 10 },
      onLifecycle: (event) => lifecycle.push(event.type),
    });
    await orchestrator.spawn('b');
    await until(() => orchestrator.list()[0]?.restarts === 1 && orchestrator.list()[0]?.state === 'ready', 'a restart');
    expect(orchestrator.list()[0]).toMatchObject({ state: 'ready', restarts: 1, pid: process.pid });
    expect(lifecycle).toEqual(['started', 'ready', 'crashed', 'started', 'ready']);
  });

  test('reload restarts a changed agent; its running turn finishes and events sent meanwhile go to the new process', async () => {
    const log: string[] = [];
    const gate = Promise.withResolvers<void>();
    const { spawn, spawned } = inMemorySpawn({ runner: () => echoRunner(log, gate.promise) });
    const orchestrator = start(spawn);
    await Promise.all([orchestrator.spawn('a'), orchestrator.spawn('b')]);
    const running = orchestrator.request({ input: 'old', target: 'b' });
    await until(() => log.includes('start old'), 'the old turn to start');
    const changed: Bundle = { ...bundle, resources: new Map(bundle.resources) };
    const b = changed.resources.get('Agent/b')!;
    changed.resources.set('Agent/b', { ...b, spec: { prompt: { system: 'changed' } } } as Resource);
    expect(orchestrator.reload(changed, resolveSwarm(changed)!)).toEqual({ restarted: ['b/default'], stopped: [] });
    const meanwhile = orchestrator.request({ input: 'new', target: 'b' });
    gate.resolve();
    expect((await running).text).toBe('echo old');
    expect((await meanwhile).text).toBe('echo new');
    expect(spawned.map((process) => process.agent)).toEqual(['a', 'b', 'b']);
    expect(orchestrator.list().map((process) => process.restarts)).toEqual([0, 1]);
  });

  test('events queued behind the running turn when a reload restarts the agent are answered by the new process', async () => {
    const log: string[] = [];
    const gate = Promise.withResolvers<void>();
    let generation = 0;
    const { spawn } = inMemorySpawn({
      runner: () => {
        generation += 1;
        // The first process's turns wait for the gate, so the reload finds 'old' running and the others queued.
        const runner = echoRunner(log, generation === 1 ? gate.promise : 0);
        const mark = generation;
        return {
          ...runner,
          enqueue: async (event, options) => ({
            ...(await runner.enqueue(event, options)),
            text: `p${mark} ${event.input}`,
          }),
        };
      },
    });
    const orchestrator = start(spawn);
    await orchestrator.spawn('b');
    const running = orchestrator.request({ input: 'old', target: 'b' });
    // Delivered to the process before the reload: they wait in its queue behind the running turn.
    const queued = orchestrator.request({ input: 'queued', target: 'b' });
    orchestrator.send({ input: 'sent', target: 'b' });
    await until(
      () => log.includes('start old') && orchestrator.list()[0]?.queueDepth === 2,
      'the old turn to run with two events behind it',
    );
    const changed: Bundle = { ...bundle, resources: new Map(bundle.resources) };
    const b = changed.resources.get('Agent/b')!;
    changed.resources.set('Agent/b', { ...b, spec: { prompt: { system: 'changed' } } } as Resource);
    orchestrator.reload(changed, resolveSwarm(changed)!);
    gate.resolve();
    expect((await running).text).toBe('p1 old');
    expect((await queued).text).toBe('p2 queued');
    const after = await orchestrator.request({ input: 'after', target: 'b' });
    expect(after.text).toBe('p2 after');
    expect(log.filter((line) => line.startsWith('start'))).toEqual([
      'start old',
      'start queued',
      'start sent',
      'start after',
    ]);
  });

  test("a reload's notice is left for each restarted instance before its new process starts, not for unchanged ones", async () => {
    const { spawn, spawned } = inMemorySpawn({ runner: () => echoRunner([], 20) });
    const noted: string[] = [];
    const orchestrator = start(spawn, {
      notices: {
        add: (agent, instanceKey, text) =>
          noted.push(`${agent}/${instanceKey} after ${spawned.length} spawns: ${text}`),
      },
    });
    await Promise.all([orchestrator.spawn('a'), orchestrator.spawn('b')]);
    const changed: Bundle = { ...bundle, resources: new Map(bundle.resources) };
    const b = changed.resources.get('Agent/b')!;
    changed.resources.set('Agent/b', { ...b, spec: { prompt: { system: 'changed' } } } as Resource);
    orchestrator.reload(changed, resolveSwarm(changed)!, { notice: 'revision two is active' });
    expect(noted).toEqual([]);
    expect((await orchestrator.request({ input: 'x', target: 'b' })).text).toBe('echo x');
    expect(noted).toEqual(['b/default after 2 spawns: revision two is active']);
    expect(spawned.map((process) => process.agent)).toEqual(['a', 'b', 'b']);
  });

  test('shutdown asks every process to stop and reports who acked', async () => {
    const { spawn } = inMemorySpawn({ runner: () => echoRunner([], 30) });
    const orchestrator = start(spawn);
    await Promise.all([orchestrator.spawn('a'), orchestrator.spawn('b')]);
    const busy = orchestrator.request({ input: 'finish me', target: 'b' });
    await Bun.sleep(5);
    expect(await orchestrator.shutdown({ gracePeriodMs: 1000 })).toEqual({
      acked: ['a/default', 'b/default'],
      killed: [],
    });
    expect((await busy).text).toBe('echo finish me');
    expect(orchestrator.list().map((process) => process.state)).toEqual(['stopped', 'stopped']);
  });
});
