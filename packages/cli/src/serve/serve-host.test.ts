// startServeHost's order at start: the port is bound before the host's parts (scheduler, channels, connectors)
// start, so a port in use starts none of them, and requests that arrive while they start wait for them.
import { afterAll, describe, expect, test } from 'bun:test';
import { type Bundle, GoondanError, loadBundle } from '@goondan/core';
import { agentBundle, cleanupTempDirs } from '../../test/helpers.ts';
import { libraryBundleDirs } from '../library-bundles.ts';
import { type HostPart, startServeHost } from './serve-host.ts';

afterAll(cleanupTempDirs);

async function fixtureBundle(): Promise<Bundle> {
  const { bundle } = await loadBundle({
    dir: await agentBundle(),
    libraries: [...libraryBundleDirs],
    libraryCacheDir: null,
  });
  if (!bundle) throw new Error('the fixture bundle did not load');
  return bundle;
}

describe('startServeHost', () => {
  test('a port in use fails the start before any part starts', async () => {
    const bundle = await fixtureBundle();
    const taken = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('taken') });
    let partsStarted = 0;
    try {
      const thrown = await startServeHost({
        bundle,
        hostname: '127.0.0.1',
        port: taken.port as number,
        log: () => {},
        parts: async () => {
          partsStarted += 1;
          return [];
        },
      }).catch((error: unknown) => error);
      expect(thrown).toBeInstanceOf(GoondanError);
      expect((thrown as GoondanError).code).toBe('E_SERVE_LISTEN_FAILED');
      expect(partsStarted).toBe(0);
    } finally {
      taken.stop(true);
    }
  });

  test('a request that arrives while the parts start is answered once they have started', async () => {
    const bundle = await fixtureBundle();
    // A free port, so the test knows the address before startServeHost returns.
    const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('probe') });
    const port = probe.port as number;
    probe.stop(true);
    const gate = Promise.withResolvers<void>();
    const partsAsked = Promise.withResolvers<void>();
    let stopped = 0;
    const part: HostPart = {
      scheduler: { count: () => 0 },
      stop: async () => {
        stopped += 1;
      },
    };
    const starting = startServeHost({
      bundle,
      hostname: '127.0.0.1',
      port,
      log: () => {},
      parts: async () => {
        partsAsked.resolve();
        await gate.promise;
        return [part];
      },
    });
    await partsAsked.promise;
    // The parts are starting: the port already takes the connection, and the answer waits for them.
    let settled = false;
    const asked = fetch(`http://127.0.0.1:${port}/healthz`).finally(() => {
      settled = true;
    });
    const host = await new Promise<Awaited<typeof starting>>((resolve, reject) => {
      // Let the request reach the server before the parts finish: its answer must not come before them.
      setImmediate(() => {
        expect(settled).toBe(false);
        gate.resolve();
        starting.then(resolve, reject);
      });
    });
    const response = await asked;
    expect(response.status).toBe(200);
    const body = (await response.json()) as { scheduler: { activeSchedules: number } | null };
    // Answered with the parts' scheduler: the request was routed after they started.
    expect(body.scheduler).toEqual({ activeSchedules: 0 });
    await host.stop('test');
    expect(stopped).toBe(1);
  });
});
