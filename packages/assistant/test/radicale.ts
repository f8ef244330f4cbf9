import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A real CalDAV/CardDAV server (Debian's radicale) on 127.0.0.1 for the calendar and contacts tests. */
export interface Radicale {
  url: string;
  port: number;
  storage: string;
  stop(): Promise<void>;
}

const RADICALE = '/usr/bin/radicale';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts radicale with htpasswd (plain) users and pre-made collections: `collections` maps "user/name" to
 * { tag: VCALENDAR | VADDRESSBOOK, displayName }. Fails, saying why, when radicale is not installed.
 */
export async function startRadicale(options: {
  users: Record<string, string>;
  collections: Record<string, { tag: 'VCALENDAR' | 'VADDRESSBOOK'; displayName: string }>;
}): Promise<Radicale> {
  if (!existsSync(RADICALE))
    throw new Error(`${RADICALE} is missing: install the Debian package radicale (listed in .ci/apt-packages).`);
  const root = mkdtempSync(join(tmpdir(), 'radicale-'));
  const storage = join(root, 'store');
  for (const [path, props] of Object.entries(options.collections)) {
    const dir = join(storage, 'collection-root', ...path.split('/'));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, '.Radicale.props'), JSON.stringify({ tag: props.tag, 'D:displayname': props.displayName }));
  }
  const users = join(root, 'users');
  writeFileSync(
    users,
    Object.entries(options.users)
      .map(([user, password]) => `${user}:${password}`)
      .join('\n'),
  );
  const port = await freePort();
  const process = Bun.spawn(
    [
      RADICALE,
      '--config',
      '',
      '--server-hosts',
      `127.0.0.1:${port}`,
      '--storage-filesystem-folder',
      storage,
      '--auth-type',
      'htpasswd',
      '--auth-htpasswd-filename',
      users,
      '--auth-htpasswd-encryption',
      'plain',
      '--logging-level',
      'warning',
    ],
    { stdout: 'ignore', stderr: 'pipe' },
  );
  for (;;) {
    if (await portOpen(port)) break;
    if (process.exitCode !== null) {
      const stderr = await new Response(process.stderr).text();
      rmSync(root, { recursive: true, force: true });
      throw new Error(`radicale exited (${process.exitCode}) before listening: ${stderr.slice(0, 500)}`);
    }
    await Bun.sleep(25);
  }
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    storage,
    async stop() {
      process.kill();
      await process.exited;
      rmSync(root, { recursive: true, force: true });
    },
  };
}
