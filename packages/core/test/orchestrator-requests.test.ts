// Inter-agent request/send through the Orchestrator with real agent processes (spec v2.0-b §2.6, §11).
import { afterAll, afterEach, describe, expect, test } from 'bun:test';
import { ConversationStore, instancePaths, openInstanceDatabase, type SpanRecord, TraceStore } from '@goondan/core';
import { isAlive, removeTempDirs, type StartedSwarm, startSwarm, waitFor } from './swarm-fixture.ts';
import { stopNatsServer, transportCases, useTransport } from './swarm-transports.ts';

let swarm: StartedSwarm | undefined;

afterEach(async () => {
  if (!swarm) return;
  const { orchestrator, pids } = swarm;
  swarm = undefined;
  await orchestrator.shutdown({ gracePeriodMs: 2000 });
  // No agent process outlives its orchestrator.
  for (const pid of pids) expect(isAlive(pid)).toBe(false);
});
afterAll(async () => {
  await removeTempDirs();
  await stopNatsServer();
});

function spansOf(dir: string, agent: string): SpanRecord[] {
  const { databaseFile } = instancePaths({ rootDir: dir, agentName: agent, instanceKey: 'default' });
  const db = openInstanceDatabase(databaseFile);
  try {
    const traces = new TraceStore(db).recentTraces(10);
    return traces.flatMap((trace) => trace.spans);
  } finally {
    db.close();
  }
}

function conversationOf(dir: string, agent: string) {
  const { databaseFile } = instancePaths({ rootDir: dir, agentName: agent, instanceKey: 'default' });
  const db = openInstanceDatabase(databaseFile);
  try {
    return new ConversationStore(db).load();
  } finally {
    db.close();
  }
}

const request = (args: object) => ({ toolCalls: [{ name: 'agents__request', args }] });

for (const kase of transportCases) {
  describe(kase.name, () => {
    useTransport(kase);

    describe('agents__request', () => {
      test('round trip: the callee is spawned on demand, its reply is the tool result, the trace continues', async () => {
        swarm = await startSwarm({
          scripts: {
            coordinator: [request({ target: 'worker', input: 'What is 6 x 7?' }), { text: 'The worker said 42.' }],
            worker: [{ text: '42' }],
          },
        });
        expect(swarm.orchestrator.list()).toEqual([]);
        const result = await swarm.orchestrator.request({ input: 'Ask the worker.' });
        expect(result).toMatchObject({ agent: 'coordinator', status: 'completed', text: 'The worker said 42.' });

        const [reply] = swarm.toolResults('coordinator', 'agents__request');
        expect(reply).toMatchObject({
          status: 'ok',
          output: { agent: 'worker', instanceKey: 'default', status: 'completed', text: '42' },
        });
        // Auto-spawn (spec §2.6.7): both instances run, each in its own process.
        const processes = swarm.orchestrator.list();
        expect(processes.map((process) => [process.agent, process.state, process.turnsServed])).toEqual([
          ['coordinator', 'ready', 1],
          ['worker', 'ready', 1],
        ]);
        expect(new Set(processes.map((process) => process.pid)).size).toBe(2);
        expect(processes.map((process) => process.pid)).not.toContain(globalThis.process.pid);

        await swarm.orchestrator.shutdown();
        // The callee's turn keeps the caller's traceId and hangs under the caller's agents__request span.
        const callerTool = spansOf(swarm.dir, 'coordinator').find((span) => span.name === 'tool agents__request')!;
        const calleeTurn = spansOf(swarm.dir, 'worker').find((span) => span.kind === 'turn')!;
        expect(calleeTurn.traceId).toBe(result.traceId);
        expect(calleeTurn.parentSpanId).toBe(callerTool.spanId);
        expect((reply!.output as { traceId: string }).traceId).toBe(result.traceId);
        // The callee read the request as a message from the coordinator.
        const [incoming] = conversationOf(swarm.dir, 'worker');
        expect(incoming!.source).toEqual({ type: 'agent', agentName: 'coordinator' });
        expect(incoming!.data.content).toBe('What is 6 x 7?');
      });

      test('an unknown target and an agent outside the swarm are coded errors, with no round trip', async () => {
        swarm = await startSwarm({
          scripts: {
            coordinator: [
              {
                toolCalls: [
                  { name: 'agents__request', args: { target: 'nobody', input: 'hi' } },
                  { name: 'agents__request', args: { target: 'outsider', input: 'hi' } },
                  { name: 'agents__send', args: { target: 'nobody', input: 'hi' } },
                ],
              },
              { text: 'done' },
            ],
            outsider: [{ text: 'never asked' }],
          },
          members: ['coordinator'],
        });
        await swarm.orchestrator.request({ input: 'go' });
        const codes = swarm.toolResults('coordinator').map((result) => result.error?.code);
        expect(codes).toEqual(['E_AGENT_UNKNOWN', 'E_AGENT_NOT_CALLABLE', 'E_AGENT_UNKNOWN']);
        expect(swarm.toolResults('coordinator')[0]!.error!.message).toContain("No agent named 'nobody'");
        expect(swarm.orchestrator.list().map((process) => process.agent)).toEqual(['coordinator']);
        // The user may address members only, too.
        await expect(swarm.orchestrator.request({ input: 'hi', target: 'outsider' })).rejects.toMatchObject({
          code: 'E_AGENT_NOT_CALLABLE',
        });
      });

      test('data nested 50,000 levels deep is E_TOOL_INVALID_ARGS for the caller, not a failed turn', async () => {
        // JSON.stringify of such a value overflows the stack: storing the call or sending it failed the whole turn.
        const deep = `${'['.repeat(50_000)}${']'.repeat(50_000)}`;
        const args = (name: string) => `{"target":"${name}","input":"hi","data":${deep}}`;
        swarm = await startSwarm({
          scripts: {
            coordinator: [
              {
                toolCalls: [
                  { name: 'agents__send', args: args('worker') },
                  { name: 'agents__request', args: args('worker') },
                ],
              },
              { text: 'done' },
            ],
            worker: [{ text: 'never asked' }],
          },
        });
        expect((await swarm.orchestrator.request({ input: 'go' })).text).toBe('done');
        const results = swarm.toolResults('coordinator');
        expect(results.map((result) => result.error?.code)).toEqual(['E_TOOL_INVALID_ARGS', 'E_TOOL_INVALID_ARGS']);
        expect(results[0]!.error!.message).toContain('arguments are nested more than 100 levels deep');
        expect(swarm.orchestrator.list().map((process) => process.agent)).toEqual(['coordinator']);
      });

      test("a tool's send with data JSON cannot carry fails at once (E_OPTIONS_INVALID), not after 30 s", async () => {
        swarm = await startSwarm({
          scripts: {
            coordinator: [{ toolCalls: [{ name: 'probe__deep-send', args: { depth: 50_000 } }] }, { text: 'done' }],
            worker: [{ text: 'never sent' }],
          },
        });
        expect((await swarm.orchestrator.request({ input: 'go' })).text).toBe('done');
        const [result] = swarm.toolResults('coordinator');
        expect(result?.error?.code).toBe('E_OPTIONS_INVALID');
        expect(result?.error?.message).toContain('data cannot be sent to another agent');
      });

      test('Tool/agents config.allow narrows whom an agent may call (agents__catalog shows the same)', async () => {
        swarm = await startSwarm({
          scripts: {
            coordinator: [
              {
                toolCalls: [
                  { name: 'agents__catalog' },
                  { name: 'agents__request', args: { target: 'auditor', input: 'hi' } },
                ],
              },
              { text: 'done' },
            ],
            worker: [],
            auditor: [],
          },
          agentSpecs: { coordinator: { tools: [{ ref: 'Tool/agents', config: { allow: ['worker'] } }, 'Tool/probe'] } },
        });
        await swarm.orchestrator.request({ input: 'go' });
        const [catalog, refused] = swarm.toolResults('coordinator');
        expect(catalog!.output).toEqual({
          self: 'coordinator',
          agents: [{ name: 'worker', description: 'You are worker.', entry: false }],
        });
        expect(refused!.error!.code).toBe('E_AGENT_NOT_CALLABLE');
      });

      test('timeout: a hung callee fails the request with E_AGENT_REQUEST_TIMEOUT, not a hang', async () => {
        swarm = await startSwarm({
          scripts: {
            coordinator: [request({ target: 'worker', input: 'sleep', timeoutMs: 300 }), { text: 'gave up' }],
            worker: [{ toolCalls: [{ name: 'probe__sleep', args: { ms: 30000 } }] }, { text: 'late' }],
          },
        });
        const started = Date.now();
        const result = await swarm.orchestrator.request({ input: 'go' });
        expect(result.text).toBe('gave up');
        expect(Date.now() - started).toBeLessThan(15_000); // the worker would sleep 30 s
        const [timedOut] = swarm.toolResults('coordinator', 'agents__request');
        expect(timedOut!.error).toMatchObject({ code: 'E_AGENT_REQUEST_TIMEOUT' });
        expect(timedOut!.error!.message).toContain('300 ms');
        // The hung worker is killed after the grace period of the shutdown below (afterEach checks its pid is gone).
        // On a loaded machine the request may time out before the worker has even started its sleep: wait for it.
        await waitFor(
          () => swarm!.notifications.some((n) => n.agent === 'worker' && n.event.type === 'runtime.tool.start'),
          30_000,
          "the worker's sleep to start",
        );
        // The grace period is long enough for the idle coordinator's ack to cross a busy broker (four JetStream
        // hops on NATS), and the worker, 30 s into its sleep, outlasts it.
        const report = await swarm.orchestrator.shutdown({ gracePeriodMs: 2000 });
        expect(report.killed).toEqual(['worker/default']);
        expect(report.acked).toEqual(['coordinator/default']);
      });

      test("the callee's failed turn is E_AGENT_TURN_FAILED carrying the callee's own code", async () => {
        swarm = await startSwarm({
          scripts: {
            coordinator: [request({ target: 'worker', input: 'try' }), { text: 'noted' }],
            worker: [{ error: 'upstream down' }],
          },
        });
        await swarm.orchestrator.request({ input: 'go' });
        const [failed] = swarm.toolResults('coordinator', 'agents__request');
        expect(failed!.error!.code).toBe('E_AGENT_TURN_FAILED');
        expect(failed!.error!.message).toContain('E_MODEL_CALL_FAILED');
        expect(failed!.error!.message).toContain('upstream down');
      });

      test('a request cycle (A waits on B, B asks A) fails at once with E_AGENT_REQUEST_CYCLE; so does asking oneself', async () => {
        swarm = await startSwarm({
          scripts: {
            coordinator: [
              request({ target: 'worker', input: 'ask me back' }),
              request({ target: 'coordinator', input: 'me?' }),
              { text: 'done' },
            ],
            worker: [request({ target: 'coordinator', input: 'back at you' }), { text: 'could not ask back' }],
          },
        });
        // A deadlock would end in E_AGENT_REQUEST_TIMEOUT; the cycle code shows it was caught when asked.
        const result = await swarm.orchestrator.request({ input: 'go' });
        expect(result.text).toBe('done');
        const [cycle] = swarm.toolResults('worker', 'agents__request');
        expect(cycle!.error!.code).toBe('E_AGENT_REQUEST_CYCLE');
        expect(cycle!.error!.message).toContain('worker/default → coordinator/default → worker/default');
        const [first, self] = swarm.toolResults('coordinator', 'agents__request');
        expect(first).toMatchObject({ status: 'ok', output: { text: 'could not ask back' } });
        expect(self!.error!.code).toBe('E_AGENT_REQUEST_CYCLE');
      });

      test('async: true answers pending at once; the reply arrives later as a tool.job.completed turn', async () => {
        swarm = await startSwarm({
          scripts: {
            coordinator: [
              request({ target: 'worker', input: 'take your time', async: true }),
              { text: 'asked' },
              { text: 'got it' },
            ],
            worker: [{ toolCalls: [{ name: 'probe__sleep', args: { ms: 100 } }] }, { text: 'done slowly' }],
          },
        });
        const result = await swarm.orchestrator.request({ input: 'go' });
        expect(result.text).toBe('asked');
        const [pending] = swarm.toolResults('coordinator', 'agents__request');
        expect(pending!.status).toBe('pending');
        await waitFor(() => swarm!.turnEnds('coordinator') === 1, 30_000, 'the job completion turn');
        await swarm.orchestrator.shutdown();
        const messages = conversationOf(swarm.dir, 'coordinator');
        const completion = messages.find((message) => String(message.data.content).startsWith('Tool job'));
        expect(String(completion!.data.content)).toContain('done slowly');
      });
    });

    describe("the caller's auth context (spec v1 §12.5.3)", () => {
      test("a request keeps the turn's first source and user: the callee applies that source's rules and acts for the user", async () => {
        const mark = { toolCalls: [{ name: 'probe__mark', args: { text: 'ran' } }] };
        swarm = await startSwarm({
          scripts: {
            coordinator: [
              request({ target: 'worker', input: 'Mark it.' }),
              { text: 'asked' },
              request({ target: 'worker', input: 'Mark it again.' }),
              { text: 'asked again' },
            ],
            worker: [mark, { text: 'tried' }, mark, { text: 'marked' }],
          },
          // Turns set off by a Telegram message may not mark, wherever they go; the worker's own rule says so.
          agentSpecs: { worker: { permissions: { sources: { 'user:telegram': { tools: { probe__mark: 'deny' } } } } } },
        });
        const first = await swarm.orchestrator.request({
          input: 'From Telegram.',
          source: { kind: 'user', name: 'telegram' },
          auth: { userId: 'ada' },
        });
        expect(first.text).toBe('asked');
        const [denied] = swarm.toolResults('worker', 'probe__mark');
        expect(denied).toMatchObject({ status: 'error', error: { code: 'E_POLICY_DENIED' } });
        expect(denied!.error!.message).toContain('for turns from agent:coordinator (from user:telegram)');
        // The same request from the command line marks: the rule is about where the chain started.
        const second = await swarm.orchestrator.request({ input: 'From the command line.' });
        expect(second.text).toBe('asked again');
        expect(swarm.toolResults('worker', 'probe__mark')[1]).toMatchObject({ status: 'ok' });

        await swarm.orchestrator.shutdown();
        // The worker's turn acted for Ada: its messages say so (OAuth's subjectMode: user reads it), the second not.
        const worker = conversationOf(swarm.dir, 'worker');
        const users = worker.map((message) => [message.data.role, message.metadata.userId ?? null]);
        expect(users.slice(0, 4)).toEqual([
          ['user', 'ada'],
          ['assistant', 'ada'],
          ['tool', null],
          ['assistant', 'ada'],
        ]);
        expect(users.slice(4).every(([, userId]) => userId === null)).toBe(true);
      });
    });

    describe('agents__send and the other agents tools', () => {
      test('send returns {sent: true} at once and the target runs a turn of its own; spawn and list work', async () => {
        swarm = await startSwarm({
          scripts: {
            coordinator: [
              { toolCalls: [{ name: 'agents__send', args: { target: 'worker', input: 'note this' } }] },
              { toolCalls: [{ name: 'agents__spawn', args: { target: 'worker', instanceKey: 'second' } }] },
              { toolCalls: [{ name: 'agents__list' }] },
              { text: 'sent' },
            ],
            worker: [{ toolCalls: [{ name: 'probe__mark', args: { text: 'noted' } }] }, { text: 'ok' }],
          },
        });
        const result = await swarm.orchestrator.request({ input: 'go' });
        expect(result.text).toBe('sent');
        const [sent, spawned, listed] = swarm.toolResults('coordinator');
        expect(sent).toMatchObject({ status: 'ok', output: { sent: true, agent: 'worker', instanceKey: 'default' } });
        expect(spawned).toMatchObject({
          status: 'ok',
          output: { agent: 'worker', instanceKey: 'second', state: 'ready' },
        });
        const instances = (listed!.output as { instances: { agent: string; instanceKey: string }[] }).instances;
        expect(instances.map((instance) => `${instance.agent}/${instance.instanceKey}`).sort()).toEqual([
          'coordinator/default',
          'worker/default',
          'worker/second',
        ]);
        await waitFor(() => swarm!.turnEnds('worker') === 1, 30_000, "the worker's turn");
        const [mark] = swarm.toolResults('worker', 'probe__mark');
        expect(mark!.status).toBe('ok');
        // The sent event carried the caller's trace too.
        await swarm.orchestrator.shutdown();
        const workerTurn = spansOf(swarm.dir, 'worker').find((span) => span.kind === 'turn')!;
        expect(workerTurn.traceId).toBe(result.traceId);
      });
    });
  });
}
