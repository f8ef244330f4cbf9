// gdn serve --nats and gdn worker (docs/transport.md): the served swarm's agents run in a worker process, their
// messages through a real nats-server started here; a chat completion crosses host → broker → worker and back.
import { afterAll, expect, test } from 'bun:test';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { type NatsServer, startNatsServer } from '../../core/test/nats-server.ts';
import { cleanupTempDirs, makeTempDir, repoRoot, startGdn } from './helpers.ts';

let server: NatsServer | undefined;
const started: ReturnType<typeof startGdn>[] = [];

afterAll(async () => {
  for (const one of started) one.proc.kill('SIGKILL');
  await Promise.all(started.map((one) => one.proc.exited));
  await server?.close();
  await cleanupTempDirs();
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('gdn serve --nats runs the swarm on a gdn worker; SIGTERM stops the host, SIGHUP the worker, no agent process left', async () => {
  server = await startNatsServer();
  const bundle = await makeTempDir('gdn-serve-nats-');
  await cp(join(repoRoot, 'examples', 'swarm'), bundle, { recursive: true });
  const worker = startGdn(['worker', '--nats', server.url, '--bundle', bundle]);
  started.push(worker);
  await worker.waitForStderr('serving namespace team', 60_000);
  const host = startGdn(['serve', '--nats', server.url, '--bundle', bundle, '--port', '0']);
  started.push(host);
  await host.waitForStderr('OpenAI-compatible base URL: ', 60_000);
  expect(host.stderr).toContain('agents run on gdn workers: NATS');
  const url = /base URL: (\S+)\/v1/.exec(host.stderr)![1]!;

  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'coordinator', messages: [{ role: 'user', content: 'Summarise our architecture' }] }),
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { choices: { message: { content: string } }[] };
  expect(body.choices[0]!.message.content).toContain("Here is the worker's summary");
  // Both agents ran in the worker's processes, not in the host's.
  const pids = [...worker.stderr.matchAll(/took (\S+) \(pid (\d+)\)/g)].map((match) => [match[1], Number(match[2])]);
  expect(pids.map(([address]) => address).sort()).toEqual(['coordinator/default', 'worker/default']);

  host.proc.kill('SIGTERM');
  expect((await host.finish()).exitCode).toBe(143);
  // SIGHUP (its terminal closed) stops a worker as SIGTERM does: its agent processes end with it.
  worker.proc.kill('SIGHUP');
  const stopped = await worker.finish();
  expect(stopped.exitCode).toBe(0);
  expect(stopped.stderr).toContain('SIGHUP: stopping');
  for (const [, pid] of pids) expect(isAlive(pid as number)).toBe(false);
});
