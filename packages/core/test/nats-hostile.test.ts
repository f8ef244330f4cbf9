// What others may put on a swarm's NATS subjects (docs/transport.md): malformed spawn requests are refused with
// E_NATS_MESSAGE_INVALID, junk on a connection's subjects is dropped without stopping it, and an envelope larger
// than the broker's max_payload travels in parts instead of being retried for ever; credentials in a URL are used.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { createNatsSwarmTransport, natsNames, startNatsWorker } from '@goondan/core';
import { type NatsServer, startNatsServer } from './nats-server.ts';
import { baseDir, removeTempDirs, type StartedSwarm, startSwarm } from './swarm-fixture.ts';

let server: NatsServer;
let namespaceCount = 0;
const cleanups: (() => Promise<unknown>)[] = [];
let swarm: StartedSwarm | undefined;

beforeAll(async () => {
  server = await startNatsServer();
});
afterEach(async () => {
  await swarm?.orchestrator.shutdown({ gracePeriodMs: 1000 });
  swarm = undefined;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});
afterAll(async () => {
  await server.close();
  await removeTempDirs();
});

/** An in-process worker and a swarm of one agent `worker` playing `script`, on a namespace of their own. */
async function swarmOn(url: string, script: object[]) {
  namespaceCount += 1;
  const namespace = `h${process.pid}x${namespaceCount}`;
  const log: string[] = [];
  const worker = await startNatsWorker({
    nats: { servers: url, namespace },
    libraries: [baseDir],
    log: (line) => log.push(line),
  });
  cleanups.push(() => worker.close());
  const transport = await createNatsSwarmTransport({ servers: url, namespace });
  cleanups.push(() => transport.close());
  swarm = await startSwarm({ scripts: { worker: script } }, { transport, readyTimeoutMs: 20_000 });
  return { namespace, worker, transport, log, swarm };
}

describe('hostile messages', () => {
  test('a malformed spawn request is answered E_NATS_MESSAGE_INVALID; the worker goes on', async () => {
    const { namespace, transport, log, swarm } = await swarmOn(server.url, [{ text: 'still here' }]);
    const { nc } = transport.session;
    const subject = natsNames(namespace).spawnSubject;
    const config = { agent: 'worker', instanceKey: 'x', bundleDir: '/tmp', libraries: [] };
    const requests = [
      '{}',
      'not json',
      'null',
      JSON.stringify({ connectionId: 'c1.>', hostId: 'h1', config }),
      JSON.stringify({ connectionId: 'c1', hostId: 'h1', config: { ...config, agent: 5 } }),
    ];
    for (const data of requests) {
      const reply = await nc.request(subject, data, { timeout: 5_000 });
      expect(reply.json()).toMatchObject({ error: { code: 'E_NATS_MESSAGE_INVALID' } });
    }
    expect(log.filter((line) => line.startsWith('refused a malformed spawn request'))).toHaveLength(requests.length);
    expect((await swarm.orchestrator.request({ input: 'hi', target: 'worker' })).text).toBe('still here');
  });

  test("junk on a connection's subjects is dropped; its messages keep flowing and the process is not ended", async () => {
    const { namespace, transport, swarm } = await swarmOn(server.url, [{ text: 'one' }, { text: 'two' }]);
    expect((await swarm.orchestrator.request({ input: 'first', target: 'worker' })).text).toBe('one');
    const names = natsNames(namespace);
    const connections: string[] = [];
    for await (const consumer of transport.session.jsm.consumers.list(names.stream)) {
      if (consumer.name.startsWith('from-')) connections.push(consumer.name.slice('from-'.length));
    }
    expect(connections).toHaveLength(1);
    const junk = ['null', '"text"', '42', 'not json', '{"m":null}', '{"exit":null}', '{"out":5}', '{}'];
    for (const subject of [names.fromSubject(connections[0]!), names.toSubject(connections[0]!)]) {
      for (const data of junk) await transport.session.js.publish(subject, data);
    }
    const reply = await swarm.orchestrator.request({ input: 'second', target: 'worker', timeoutMs: 15_000 });
    expect(reply.text).toBe('two');
    expect(swarm.orchestrator.list()[0]).toMatchObject({ state: 'ready', restarts: 0 });
  });
});

describe('large messages', () => {
  test("envelopes above the broker's max_payload travel in parts: the bundle, a large input and a large reply", async () => {
    const small = await startNatsServer({ config: 'max_payload: 16384' });
    cleanups.push(() => small.close());
    const text = 'é'.repeat(30_000);
    const { swarm } = await swarmOn(small.url, [{ text }]);
    const reply = await swarm.orchestrator.request({ input: 'ü'.repeat(40_000), target: 'worker', timeoutMs: 30_000 });
    expect(reply.text).toBe(text);
  });
});

describe('connecting', () => {
  test('credentials in the URL are used (and kept out of errors); a missing key file is E_NATS_CONFIG', async () => {
    const guarded = await startNatsServer({ config: 'authorization { user: alice, password: s3cretPass }' });
    cleanups.push(() => guarded.close());
    const withUser = (userinfo: string) => guarded.url.replace('nats://', `nats://${userinfo}@`);
    const transport = await createNatsSwarmTransport({ servers: withUser('alice:s3cretPass'), namespace: 'creds' });
    await transport.close();
    const wrong = await createNatsSwarmTransport({ servers: withUser('alice:wrongPass'), namespace: 'creds' }).catch(
      (error) => error,
    );
    expect(wrong.code).toBe('E_NATS_UNREACHABLE');
    expect(wrong.message).toContain('Authorization');
    expect(wrong.message).not.toContain('wrongPass');
    const missing = await createNatsSwarmTransport({
      servers: guarded.url,
      namespace: 'creds',
      credsFile: '/nonexistent/team.creds',
    }).catch((error) => error);
    expect(missing.code).toBe('E_NATS_CONFIG');
    expect(missing.message).toContain('/nonexistent/team.creds');
  });
});
