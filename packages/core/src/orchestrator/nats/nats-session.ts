import { readFileSync } from 'node:fs';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { GoondanError } from '../../errors/goondan-error.ts';
import {
  DEFAULT_LEASE_TTL_MS,
  type NatsConfig,
  type NatsNames,
  natsNames,
  natsServers,
  serverCredentials,
} from './nats-config.ts';

/** One connection to the broker with what a swarm needs on it: JetStream, its stream, its lease bucket. */
export interface NatsSession {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  leases: KV;
  names: NatsNames;
  leaseTtlMs: number;
  /** The client modules, loaded once NATS is configured (no other run pays for them). */
  modules: NatsModules;
  /** Handlers called after every reconnection (consumers pull again). */
  onReconnect(handler: () => void): () => void;
  close(): Promise<void>;
}

type NatsModules = {
  core: typeof import('@nats-io/transport-node');
  jetstream: typeof import('@nats-io/jetstream');
  kv: typeof import('@nats-io/kv');
};

let loaded: Promise<NatsModules> | undefined;

/** Imports the NATS clients on first use only. */
export function natsModules(): Promise<NatsModules> {
  loaded ??= Promise.all([import('@nats-io/transport-node'), import('@nats-io/jetstream'), import('@nats-io/kv')]).then(
    ([core, jetstream, kv]) => ({ core, jetstream, kv }),
  );
  return loaded;
}

const DUPLICATE_WINDOW_NS = 2 * 60 * 1e9;

/**
 * Connects (reconnecting forever after a loss: a broker restart is survived), makes sure the swarm's stream
 * (work queue, file storage, two-minute dedup window for Nats-Msg-Id) and lease bucket exist.
 */
export async function openNatsSession(config: NatsConfig & { namespace: string; name?: string }): Promise<NatsSession> {
  const modules = await natsModules();
  const { core, jetstream, kv } = modules;
  const { servers, ...inUrls } = serverCredentials(natsServers(config));
  const names = natsNames(config.namespace);
  const leaseTtlMs = config.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  // Read before connecting: a missing key file is a config mistake (E_NATS_CONFIG), not an unreachable broker.
  const auth = authOptions(config, core);
  const token = config.token ?? (config.user ? undefined : inUrls.token);
  const user = config.user ?? (config.token ? undefined : inUrls.user);
  const pass = config.user ? config.pass : inUrls.pass;
  let nc: NatsConnection;
  try {
    nc = await core.connect({
      servers,
      name: config.name ?? `gdn ${process.pid}`,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      ...auth,
      ...(token ? { token } : {}),
      ...(user ? { user, pass: pass ?? '' } : {}),
      ...(config.tls ? { tls: { ...config.tls } } : {}),
    });
  } catch (thrown) {
    const reason = thrown instanceof Error ? thrown.message : String(thrown);
    throw new GoondanError('E_NATS_UNREACHABLE', `Could not connect to NATS at ${servers.join(', ')}: ${reason}`, {
      suggestion: 'Check that nats-server runs with JetStream (-js) and that the URL and credentials are right.',
    });
  }
  try {
    const jsm = await jetstream.jetstreamManager(nc);
    await ensureStream(jsm, names, jetstream);
    const leases = await new kv.Kvm(nc).create(names.leaseBucket, { ttl: leaseTtlMs, history: 1 });
    const reconnectHandlers = new Set<() => void>();
    void (async () => {
      for await (const status of nc.status()) {
        if (status.type !== 'reconnect') continue;
        for (const handler of reconnectHandlers) handler();
      }
    })().catch(() => {});
    return {
      nc,
      js: jetstream.jetstream(nc),
      jsm,
      leases,
      names,
      leaseTtlMs,
      modules,
      onReconnect(handler) {
        reconnectHandlers.add(handler);
        return () => reconnectHandlers.delete(handler);
      },
      async close() {
        await nc.drain().catch(() => nc.close());
      },
    };
  } catch (thrown) {
    await nc.close().catch(() => {});
    if (thrown instanceof GoondanError) throw thrown;
    const reason = thrown instanceof Error ? thrown.message : String(thrown);
    throw new GoondanError('E_NATS_UNREACHABLE', `NATS at ${servers.join(', ')} has no usable JetStream: ${reason}`, {
      suggestion: 'Start nats-server with JetStream enabled (-js, with a store directory: -sd DIR).',
    });
  }
}

function authOptions(config: NatsConfig, core: NatsModules['core']) {
  const read = (file: string, what: string) => {
    try {
      return readFileSync(file);
    } catch (thrown) {
      throw new GoondanError(
        'E_NATS_CONFIG',
        `Could not read the NATS ${what} file ${file}: ${(thrown as Error).message}`,
      );
    }
  };
  if (config.credsFile) return { authenticator: core.credsAuthenticator(read(config.credsFile, 'credentials')) };
  if (config.nkeySeedFile) {
    const seed = new TextEncoder().encode(read(config.nkeySeedFile, 'NKey seed').toString('utf8').trim());
    return { authenticator: core.nkeyAuthenticator(seed) };
  }
  return {};
}

async function ensureStream(jsm: JetStreamManager, names: NatsNames, modules: NatsModules['jetstream']) {
  const config = {
    name: names.stream,
    subjects: names.streamSubjects,
    retention: modules.RetentionPolicy.Workqueue,
    storage: modules.StorageType.File,
    duplicate_window: DUPLICATE_WINDOW_NS,
  };
  try {
    await jsm.streams.info(names.stream);
  } catch {
    await jsm.streams.add(config).catch(async (thrown) => {
      // Another process created it meanwhile.
      await jsm.streams.info(names.stream).catch(() => {
        throw thrown;
      });
    });
  }
}
