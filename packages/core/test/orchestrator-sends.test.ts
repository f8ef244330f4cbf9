// agents__send is durable (docs/orchestrator.md): an accepted send is handled in this run — the end of a run
// waits for it — or, if the run stops first, stays in the target's inbox and is handled when the target next starts.
import { afterAll, afterEach, describe, expect, test } from 'bun:test';
import { ConversationStore, instancePaths, Orchestrator, openInstanceDatabase, resolveSwarm } from '@goondan/core';
import { baseDir, removeTempDirs, type StartedSwarm, startSwarm, transportOptions, waitFor } from './swarm-fixture.ts';
import { stopNatsServer, transportCases, useTransport } from './swarm-transports.ts';

let swarm: StartedSwarm | undefined;
let second: Orchestrator | undefined;
let closeSecond: (() => Promise<void>) | undefined;
afterEach(async () => {
  await swarm?.orchestrator.shutdown({ gracePeriodMs: 0 });
  await second?.shutdown({ gracePeriodMs: 0 });
  await closeSecond?.();
  closeSecond = undefined;
  swarm = undefined;
  second = undefined;
});
afterAll(async () => {
  await removeTempDirs();
  await stopNatsServer();
});

/** The user inputs the worker's conversation holds, in order. */
function workerInputs(dir: string): string[] {
  const { databaseFile } = instancePaths({ rootDir: dir, agentName: 'worker', instanceKey: 'default' });
  const db = openInstanceDatabase(databaseFile);
  try {
    return new ConversationStore(db)
      .load()
      .filter((message) => message.data.role === 'user')
      .map((message) => String(message.data.content));
  } finally {
    db.close();
  }
}

const notes = (count: number) => Array.from({ length: count }, (_, index) => `note ${index + 1}`);
const sendAll = (inputs: string[]) => ({
  toolCalls: inputs.map((input) => ({ name: 'agents__send', args: { target: 'worker', input } })),
});

for (const kase of transportCases) {
  describe(kase.name, () => {
    useTransport(kase);

    describe('agents__send delivery', () => {
      test('the end of a run waits until every accepted send is handled, though the target had not started', async () => {
        const inputs = notes(30);
        swarm = await startSwarm({
          scripts: {
            coordinator: [sendAll(inputs), { text: 'sent' }],
            worker: inputs.map(() => ({ text: 'noted' })),
          },
        });
        const reply = await swarm.orchestrator.request({ input: 'go' });
        expect(reply.text).toBe('sent');
        const sent = swarm.toolResults('coordinator', 'agents__send');
        expect(sent.filter((result) => result.status === 'ok')).toHaveLength(inputs.length);
        const report = await swarm.orchestrator.shutdown({ drain: true, drainTimeoutMs: 120_000 });
        expect(report.pendingSends ?? 0).toBe(0);
        expect(workerInputs(swarm.dir).sort()).toEqual([...inputs].sort());
      });

      test('sends a stopped run did not handle stay stored and are handled, once each, by the next run', async () => {
        const inputs = notes(4);
        // Each worker turn waits in a tool, so a shutdown without drain leaves most sends unhandled.
        const workerTurn = [{ toolCalls: [{ name: 'probe__sleep', args: { ms: 1000 } }] }, { text: 'noted' }];
        swarm = await startSwarm({
          scripts: {
            coordinator: [sendAll(inputs), { text: 'sent' }],
            worker: inputs.flatMap(() => workerTurn),
          },
        });
        await swarm.orchestrator.request({ input: 'go' });
        const first = await swarm.orchestrator.shutdown({ gracePeriodMs: 30_000 });
        expect(first.pendingSends).toBeGreaterThan(0);
        const handledFirst = workerInputs(swarm.dir);
        expect(handledFirst.length).toBe(inputs.length - first.pendingSends!);

        // The next run of the swarm starts the worker for its stored sends, and its end waits for them.
        const transport = await transportOptions();
        closeSecond = transport.close;
        second = new Orchestrator({
          ...transport.options,
          bundle: swarm.bundle,
          topology: resolveSwarm(swarm.bundle)!,
          instanceKey: 'default',
          libraries: [baseDir],
          stateFile: null,
          onOutput: () => {},
        });
        const report = await second.shutdown({ drain: true, drainTimeoutMs: 120_000 });
        expect(report.pendingSends ?? 0).toBe(0);
        const all = workerInputs(swarm.dir);
        expect(all.slice(0, handledFirst.length)).toEqual(handledFirst);
        expect([...all].sort()).toEqual([...inputs].sort());
      });

      test('a shutdown without drain during the drain of one under way (Ctrl-C as gdn run ends) ends the drain at once', async () => {
        swarm = await startSwarm({
          scripts: {
            coordinator: [sendAll(['note']), { text: 'sent' }],
            worker: [{ toolCalls: [{ name: 'probe__sleep', args: { ms: 600_000 } }] }, { text: 'noted' }],
          },
        });
        await swarm.orchestrator.request({ input: 'go' });
        // The end of the run waits for the send, whose turn does not end (a drain timeout far above the test's).
        const draining = swarm.orchestrator.shutdown({ drain: true, drainTimeoutMs: 600_000, gracePeriodMs: 0 });
        const interrupted = await swarm.orchestrator.shutdown({ reason: 'SIGINT' });
        expect(interrupted.pendingSends).toBe(1);
        expect(await draining).toBe(interrupted);
      });

      test('another orchestrator on the bundle leaves alone the stored sends of an instance the first one runs', async () => {
        // The worker's turn for the send holds its instance: the send stays in its inbox while the first run goes on.
        swarm = await startSwarm({
          scripts: {
            coordinator: [sendAll(['note']), { text: 'sent' }],
            worker: [{ toolCalls: [{ name: 'probe__sleep', args: { ms: 600_000 } }] }, { text: 'noted' }],
          },
        });
        await swarm.orchestrator.request({ input: 'go' });
        const started = swarm;
        await waitFor(
          () =>
            started.notifications.some(({ agent, event }) => agent === 'worker' && event.type === 'runtime.tool.start'),
          30_000,
          "the worker's turn",
        );

        // A second run on another instance key: worker/default is not its to start (it took E_INSTANCE_BUSY for
        // it, restarting for the whole run, and its end waited the drain timeout for a send it could not handle).
        const transport = await transportOptions();
        closeSecond = transport.close;
        const lines: string[] = [];
        second = new Orchestrator({
          ...transport.options,
          bundle: swarm.bundle,
          topology: resolveSwarm(swarm.bundle)!,
          instanceKey: 'other',
          libraries: [baseDir],
          stateFile: null,
          onOutput: (line) => lines.push(line),
        });
        expect(second.list()).toEqual([]);
        const report = await second.shutdown({ drain: true });
        expect(report.pendingSends ?? 0).toBe(0);
        expect(lines).toEqual([]);
      });
    });
  });
}
