import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A real nats-server with JetStream, started by a test on 127.0.0.1 (or `host`) and a free port. */
export interface NatsServer {
  url: string;
  port: number;
  storeDir: string;
  /** Stops it (SIGTERM, as a broker restart would) and starts it again on the same port and store. */
  restart(): Promise<void>;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it and removes its store. */
  close(): Promise<void>;
}

const binary = 'nats-server';

async function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function waitForPort(host: string, port: number, exited: Promise<number>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  for (;;) {
    if (gone) throw new Error(`nats-server exited before listening on ${host}:${port}`);
    try {
      const socket = await Bun.connect({ hostname: host, port, socket: { data() {} } });
      socket.end();
      return;
    } catch {
      if (Date.now() > deadline)
        throw new Error(`nats-server did not listen on ${host}:${port} within ${timeoutMs} ms`);
      await Bun.sleep(15);
    }
  }
}

/**
 * Starts nats-server -js with a temp store; fails (never skips) when the binary is missing. `config`: lines of a
 * server configuration file (e.g. `max_payload: 16384`), for what has no command-line flag.
 */
export async function startNatsServer(options: { host?: string; config?: string } = {}): Promise<NatsServer> {
  if (!Bun.which(binary)) {
    throw new Error(
      'nats-server is not installed: the NATS transport tests need it (Debian package nats-server, listed in .ci/apt-packages).',
    );
  }
  const host = options.host ?? '127.0.0.1';
  const port = await freePort(host);
  const storeDir = await mkdtemp(join(tmpdir(), 'gdn-nats-'));
  const configArgs: string[] = [];
  if (options.config) {
    const file = join(storeDir, 'server.conf');
    await writeFile(file, `${options.config}\n`);
    configArgs.push('-c', file);
  }
  let child: ReturnType<typeof Bun.spawn> | undefined;
  const server: NatsServer = {
    url: `nats://${host}:${port}`,
    port,
    storeDir,
    async start() {
      child = Bun.spawn([binary, ...configArgs, '-js', '-sd', storeDir, '-a', host, '-p', String(port)], {
        stdout: 'ignore',
        stderr: 'ignore',
      });
      await waitForPort(host, port, child.exited);
    },
    async stop() {
      if (!child) return;
      child.kill('SIGTERM');
      await child.exited;
      child = undefined;
    },
    async restart() {
      await server.stop();
      await server.start();
    },
    async close() {
      await server.stop();
      await rm(storeDir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}
