// maxProcesses and the requests that wait for a place: cancelled while waiting (an HTTP client that went away), or
// still waiting at shutdown (docs/orchestrator.md#a-limit-on-processes). The limit's main cases are in
// orchestrator-lifecycle.test.ts, over both transports.
import { afterAll, afterEach, expect, test } from 'bun:test';
import { isAlive, removeTempDirs, type StartedSwarm, startSwarm, waitFor } from './swarm-fixture.ts';

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
});

const sleep = (ms: number) => ({ toolCalls: [{ name: 'probe__sleep', args: { ms } }] });

test('a waiting request cancelled before its instance started does not hold the place from the next waiting one', async () => {
  swarm = await startSwarm(
    { scripts: { coordinator: [sleep(700), { text: 'slept' }], worker: [{ text: 'idle' }] } },
    { maxProcesses: 1 },
  );
  const orchestrator = swarm.orchestrator;
  const stateOf = (instanceKey: string) =>
    orchestrator.list().find((p) => p.agent === 'coordinator' && p.instanceKey === instanceKey)?.state;
  // a holds the only place in a tool call.
  const first = orchestrator.request({ input: 'sleep', instanceKey: 'a' });
  await waitFor(() => swarm!.notifications.some((n) => n.instanceKey === 'a' && n.event.type === 'runtime.tool.start'));
  // c waits first, then b; c's client goes away while it waits.
  const abort = new AbortController();
  const cancelled = orchestrator.request({ input: 'never mind', instanceKey: 'c', signal: abort.signal });
  await waitFor(() => stateOf('c') === 'waiting', 10_000, 'c to wait for a place');
  const second = orchestrator.request({ input: 'hello', instanceKey: 'b' });
  await waitFor(() => stateOf('b') === 'waiting', 10_000, 'b to wait for a place');
  abort.abort();
  expect((await cancelled).status).toBe('cancelled');
  expect((await first).text).toBe('slept');
  // b gets the place: c has nothing left to run, so it leaves the queue (it used to start and idle in the place).
  const answer = await Promise.race([second, Bun.sleep(8_000).then(() => 'b still waiting after 8 s')]);
  expect(typeof answer === 'string' ? answer : answer.status).toBe('completed');
}, 20_000);

test('shutdown answers a request still waiting for a place (E_AGENT_SHUTTING_DOWN), it does not leave it unsettled', async () => {
  swarm = await startSwarm(
    { scripts: { coordinator: [sleep(700), { text: 'slept' }], worker: [{ text: 'idle' }] } },
    { maxProcesses: 1 },
  );
  const orchestrator = swarm.orchestrator;
  const first = orchestrator.request({ input: 'sleep', instanceKey: 'a' });
  await waitFor(() => swarm!.notifications.some((n) => n.instanceKey === 'a' && n.event.type === 'runtime.tool.start'));
  const waiting = orchestrator.request({ input: 'hello', instanceKey: 'b' }).then(
    (reply) => `answered ${reply.status}`,
    (error) => `failed ${(error as { code?: string }).code}`,
  );
  await waitFor(
    () => orchestrator.list().find((p) => p.instanceKey === 'b')?.state === 'waiting',
    10_000,
    'b to wait for a place',
  );
  const { pids } = swarm;
  swarm = undefined;
  await orchestrator.shutdown({ gracePeriodMs: 5000, reason: 'test' });
  for (const pid of pids) expect(isAlive(pid)).toBe(false);
  expect((await first).text).toBe('slept');
  const outcome = await Promise.race([waiting, Bun.sleep(2_000).then(() => 'never settled')]);
  expect(outcome).toBe('failed E_AGENT_SHUTTING_DOWN');
}, 20_000);

test("an agent's spawns, requests and sends start processes only up to agentProcessLimit: beyond it E_AGENT_PROCESS_LIMIT", async () => {
  const spawn = (instanceKey: string) => ({ name: 'agents__spawn', args: { target: 'worker', instanceKey } });
  swarm = await startSwarm(
    {
      scripts: {
        // The coordinator and worker/k1 run: a third process is one too many; worker/k1 itself is still reachable.
        coordinator: [
          { toolCalls: [spawn('k1')] },
          {
            toolCalls: [
              spawn('k2'),
              { name: 'agents__request', args: { target: 'worker', instanceKey: 'k3', input: 'hello' } },
              { name: 'agents__send', args: { target: 'worker', instanceKey: 'k4', input: 'note' } },
              spawn('k1'),
            ],
          },
          { text: 'done' },
        ],
        worker: [{ text: 'idle' }],
      },
    },
    { agentProcessLimit: 2 },
  );
  expect((await swarm.orchestrator.request({ input: 'go' })).text).toBe('done');
  // In the order the calls ended: the refusals come at once, the spawn of a running instance after them.
  const results = swarm.toolResults('coordinator');
  expect(results.map((result) => result.error?.code ?? result.status).sort()).toEqual([
    'E_AGENT_PROCESS_LIMIT',
    'E_AGENT_PROCESS_LIMIT',
    'E_AGENT_PROCESS_LIMIT',
    'ok',
    'ok',
  ]);
  const refused = results.flatMap((result) => (result.error ? [result.error.message] : [])).sort();
  expect(refused.map((message) => message.slice(0, message.indexOf(' is not running')))).toEqual([
    'Agent worker/k2',
    'Agent worker/k3',
    'Agent worker/k4',
  ]);
  expect(swarm.orchestrator.list().map((p) => `${p.agent}/${p.instanceKey}`)).toEqual([
    'coordinator/default',
    'worker/k1',
  ]);
}, 30_000);
