import { GoondanError } from '../../errors/goondan-error.ts';

/**
 * How to reach the NATS server that carries a swarm (docs/transport.md#configuration). Credentials are passed
 * to the client as they are; files are read when connecting.
 */
export interface NatsConfig {
  /** Server URL(s): `nats://host:4222`, `tls://host:4222` (a comma-separated string is split). */
  servers: string | string[];
  /** What subjects, the stream and the KV bucket are named after (default: the Swarm's name). */
  namespace?: string;
  /** A `.creds` file (user JWT and NKey seed) for decentralised auth. */
  credsFile?: string;
  /** A file holding an NKey user seed (`SU…`). */
  nkeySeedFile?: string;
  token?: string;
  user?: string;
  pass?: string;
  /** TLS files (PEM): the CA to trust, and a client certificate with its key for mutual TLS. */
  tls?: { caFile?: string; certFile?: string; keyFile?: string };
  /**
   * Whether the workers see the orchestrator's bundle directory and state (`.goondan/`) at the same path (one
   * machine, or a shared file system): then sent events wait in each instance's database as with IPC. Default
   * false: sends are durable while the orchestrator runs (JetStream keeps them across a broker restart).
   */
  sharedState?: boolean;
  /** How long a worker's lease on an instance lives unrenewed (default 10 000 ms; the worker renews every third). */
  leaseTtlMs?: number;
}

export const DEFAULT_LEASE_TTL_MS = 10_000;
const namespacePattern = /^[A-Za-z0-9_-]{1,64}$/;

/** A namespace as NATS names allow it (letters, digits, `_`, `-`): dots and wildcards would cross namespaces. */
export function checkNamespace(namespace: string): string {
  if (!namespacePattern.test(namespace)) {
    throw new GoondanError(
      'E_NATS_CONFIG',
      `The NATS namespace '${namespace}' must be 1-64 letters, digits, '_' or '-'.`,
      { suggestion: 'Set transport.nats.namespace (or --namespace) to a plain name such as the Swarm name.' },
    );
  }
  return namespace;
}

/** The server list of a config: one string with commas, or an array. */
export function natsServers(config: Pick<NatsConfig, 'servers'>): string[] {
  const list = (Array.isArray(config.servers) ? config.servers : String(config.servers ?? '').split(','))
    .map((server) => server.trim())
    .filter(Boolean);
  if (list.length === 0) {
    throw new GoondanError('E_NATS_CONFIG', 'No NATS server given.', {
      suggestion: 'Pass --nats nats://HOST:4222, or set transport.nats.servers.',
    });
  }
  return list;
}

/**
 * Credentials written into server URLs (`nats://user:pass@host`, `nats://token@host`), which the NATS client
 * ignores (the connection was refused "Authorization Violation"): lifted out of the URLs, which go on without
 * them (so no log line or error message shows them). Credentials given otherwise win.
 */
export function serverCredentials(servers: string[]): {
  servers: string[];
  user?: string;
  pass?: string;
  token?: string;
} {
  let found: { user?: string; pass?: string; token?: string } = {};
  const bare = servers.map((server) => {
    const match = /^([a-z]+:\/\/)?([^@/]*)@(.*)$/i.exec(server);
    if (!match) return server;
    const [, scheme = '', userinfo = '', rest = ''] = match;
    const colon = userinfo.indexOf(':');
    const decode = (text: string) => {
      try {
        return decodeURIComponent(text);
      } catch {
        return text;
      }
    };
    if (userinfo && !found.user && !found.token) {
      found =
        colon < 0
          ? { token: decode(userinfo) }
          : { user: decode(userinfo.slice(0, colon)), pass: decode(userinfo.slice(colon + 1)) };
    }
    return `${scheme}${rest}`;
  });
  return { servers: bare, ...found };
}

/** Names of everything one swarm uses on the broker, all under its namespace. */
export function natsNames(namespace: string) {
  const ns = checkNamespace(namespace);
  return {
    /** Orchestrator → process messages of one connection (a process's life). */
    toSubject: (connectionId: string) => `gdn.${ns}.to.${connectionId}`,
    /** Process → orchestrator messages of one connection, then its exit. */
    fromSubject: (connectionId: string) => `gdn.${ns}.from.${connectionId}`,
    /** Request/reply: a worker of the queue group takes an instance. */
    spawnSubject: `gdn.${ns}.spawn`,
    /** A worker's control subject (kill a process). */
    workerSubject: (workerId: string) => `gdn.${ns}.worker.${workerId}`,
    stream: `GDN_${ns}`,
    streamSubjects: [`gdn.${ns}.to.*`, `gdn.${ns}.from.*`],
    leaseBucket: `gdn_${ns}_leases`,
    workerQueue: 'workers',
  };
}

export type NatsNames = ReturnType<typeof natsNames>;
