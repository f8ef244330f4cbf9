import type { Bundle } from '@goondan/core';
import { instancePaths } from '@goondan/core/session';
import { parseCommandArgs } from '../cli-args.ts';
import { natsConfigOf, natsFlagSpec, natsFlagsHelp, natsServersLabel } from '../nats-flags.ts';
import { openBundle } from '../open-bundle.ts';
import { checkListenAddress } from '../serve/check-bearer-token.ts';
import { printable, UsageError, useColor } from '../terminal.ts';
import { watchSwarm } from '../watch-swarm.ts';
import { wholeNumber } from '../whole-number.ts';
import { printProblems } from './validate.ts';

export const serveHelp = `Usage: gdn serve [--host H] [--port P] [--token T] [--allow-origin LIST] [--instance K] [--swarm NAME]
                 [--watch] [--grace MS] [--drain-delay MS] [--idle-stop MS] [--max-processes N] [--bundle DIR]
                 [--nats URL [--namespace N] [--shared-state] [--nats-creds F] [--nats-nkey F] [--nats-ca F]
                             [--nats-cert F] [--nats-key F]]

Runs the bundle's agents and keeps running: an Orchestrator (one process per agent instance), the bundle's
scheduler and channels, and an HTTP API — OpenAI-compatible chat completions (model = agent name), events,
conversations, approvals and schedules. See docs/serve.md.

Options:
  --host H         address to listen on (default 127.0.0.1); any non-loopback address needs a token
  --port P         port (default 8787; 0 picks a free one); the URL is printed on standard error
  --token T        require 'Authorization: Bearer T' (default: the GOONDAN_SERVE_TOKEN environment variable)
  --allow-origin LIST
                   web pages allowed to call besides loopback ones (CORS): comma-separated origins, or *
  --instance K     instance key of requests that name none (default: the Swarm's instanceKey, or "default")
  --swarm NAME     the Swarm to serve when the bundle declares several (without one, every Agent is served)
  --watch          reload when the bundle's files change (without it, only when its git revision moves, as an
                   activated changeset does): only agents whose resources changed restart
  --grace MS       how long the shutdown may take, from the signal: accepted events handled, running turns
                   finished; what has not ended then is killed (default 10000)
  --drain-delay MS keep answering /healthz 503 "draining" at least this long after the signal, even with nothing
                   running, so a load balancer sees the drain before the port closes (default 0; within --grace)
  --idle-stop MS   stop an agent process idle this long (no turn, job, approval or request of its own); its next
                   event starts it again from its stored conversation (default 600000, ten minutes; 0: never)
  --max-processes N
                   at most N agent processes at once (default 64; 0: no limit): an instance beyond it waits
                   until the least recently active idle process has stopped to make room
  --shared-state   with --nats: the workers see this bundle's .goondan/ (one machine, or a shared file system)
${natsFlagsHelp}
                   with --nats, agent processes run on gdn workers (gdn worker --nats URL), not here
  --bundle DIR     the bundle directory (default: the current directory or a parent with goondan.yaml)

SIGTERM, Ctrl-C or SIGHUP (its terminal closed) stop taking requests and let running turns finish within --grace
(a second one kills the agents and exits at once). One gdn serve at a time serves a bundle.
Exit status: it runs until a signal stops it, then 143 after SIGTERM, 130 after SIGINT (Ctrl-C), 129 after SIGHUP;
1 error at start (invalid bundle or --instance, the bundle already served, port in use, no token beyond loopback),
2 usage error.`;

const DEFAULT_PORT = 8787;
/** An agent process idle this long is stopped (one process per instance: a host serving many people). */
const DEFAULT_IDLE_STOP_MS = 600_000;
/** At most this many agent processes (tens of MB each): events for more instances wait for a place. */
const DEFAULT_MAX_PROCESSES = 64;

function numberFlag(name: string, value: string | undefined, fallback: number | undefined): number | undefined {
  if (value === undefined) return fallback;
  const parsed = wholeNumber(value);
  if (parsed === null) throw new UsageError(`--${name} must be a whole number, got '${value}'`, 'serve');
  return parsed;
}

export async function serveCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    command: 'serve',
    argv,
    spec: {
      host: { type: 'string' },
      port: { type: 'string' },
      token: { type: 'string' },
      'allow-origin': { type: 'string' },
      instance: { type: 'string' },
      swarm: { type: 'string' },
      watch: { type: 'boolean' },
      grace: { type: 'string' },
      'drain-delay': { type: 'string' },
      'idle-stop': { type: 'string' },
      'max-processes': { type: 'string' },
      ...natsFlagSpec,
    },
  });
  if (values.help) {
    console.log(serveHelp);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`, 'serve');
  const port = numberFlag('port', values.port, DEFAULT_PORT)!;
  if (port > 65535) throw new UsageError(`--port must be at most 65535, got ${port}`, 'serve');
  const gracePeriodMs = numberFlag('grace', values.grace, undefined);
  const drainDelayMs = numberFlag('drain-delay', values['drain-delay'], undefined);
  const idleStopMs = numberFlag('idle-stop', values['idle-stop'], DEFAULT_IDLE_STOP_MS)!;
  const maxProcesses = numberFlag('max-processes', values['max-processes'], DEFAULT_MAX_PROCESSES)!;
  const token = values.token ?? (process.env.GOONDAN_SERVE_TOKEN || undefined);
  const hostname = values.host ?? '127.0.0.1';
  // Before the bundle is loaded: a refused address costs nothing.
  checkListenAddress(hostname, token);
  // The host's lines quote others (an agent process's crash, a failed reload's error): no control character of
  // theirs reaches the terminal. Its own lines have no colours.
  const log = (line: string) => console.error(printable(line));
  // From here on a signal is ours in every state: one stops gracefully (once started), a second exits at once.
  const signals = watchStopSignals(log);
  let lock: { release(): void } | undefined;
  try {
    const opened = await openBundle(values.bundle);
    const bundle = opened.bundle;
    if (!bundle) {
      printProblems(opened.dir, opened.problems, useColor(process.stderr));
      return 1;
    }
    // Refused at start as gdn run refuses it, not on every request that names no instance.
    if (values.instance !== undefined) {
      instancePaths({ rootDir: bundle.rootDir, agentName: 'serve', instanceKey: values.instance });
    }
    // Loaded here, not at start-up: no other command pays for the HTTP API and the channels.
    const [{ holdServeLock }, { startServeHost }, { hostParts }] = await Promise.all([
      import('../serve/serve-lock.ts'),
      import('../serve/serve-host.ts'),
      import('../serve/host-parts.ts'),
    ]);
    // Before anything starts: a second gdn serve of this bundle is refused, naming the first.
    // Held while it runs: taken again if its file is deleted, and a stop if another process took it meanwhile.
    lock = holdServeLock({ rootDir: bundle.rootDir, log, onLost: (why) => signals.stop(why) });
    const started = (async () => {
      const transport = await natsTransport(natsConfigOf(values), bundle, values.swarm, log);
      const host = await startServeHost({
        bundle,
        hostname,
        port,
        log,
        parts: hostParts,
        ...(values.swarm ? { swarm: values.swarm } : {}),
        ...(values.instance === undefined ? {} : { instanceKey: values.instance }),
        ...(token ? { token } : {}),
        ...(values['allow-origin']
          ? { allowedOrigins: values['allow-origin'].split(',').map((origin) => origin.trim()) }
          : {}),
        ...(gracePeriodMs === undefined ? {} : { gracePeriodMs }),
        ...(drainDelayMs === undefined ? {} : { drainDelayMs }),
        idleStopMs,
        maxProcesses,
        ...(transport ? { transport } : {}),
      }).catch(async (thrown) => {
        await transport?.close();
        throw thrown;
      });
      return { host, transport };
    })();
    const running = await Promise.race([started, signals.second]);
    if (!running) {
      // A second signal while starting: exit now (the orchestrator kills its agent processes as the process exits).
      started.catch(() => {});
      return signals.exitCode();
    }
    const { host, transport } = running;
    if (!signals.signalled()) {
      const topology = host.context.topology();
      log(`[serve] serving ${topology.agents.join(', ')} (swarm ${topology.name}) on ${host.url}`);
      log(`[serve] OpenAI-compatible base URL: ${host.url}/v1${token ? ' (bearer token required)' : ''}`);
    }
    // An activated changeset (a new git revision of the bundle) always reloads; --watch also reloads on every save.
    const watching = watchSwarm({
      session: { orchestrator: host.orchestrator, bundle: host.context.bundle() },
      resolve: (bundle) => host.serve(bundle),
      stopped: signals.first.then(() => {}),
      revisionsOnly: values.watch !== true,
      log,
    });
    const signal = await signals.first;
    const graceful = (async () => {
      await watching;
      await host.stop(signal);
      await transport?.close();
      log('[serve] stopped');
      return 'stopped' as const;
    })();
    // The grace period bounds the stop (docs/serve.md); past it, and at a second signal, everything is killed.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const overdue = new Promise<'overdue'>((resolve) => {
      timer = setTimeout(() => resolve('overdue'), host.gracePeriodMs + KILL_MARGIN_MS);
    });
    const end = await Promise.race([graceful, signals.second.then(() => 'killed' as const), overdue]);
    clearTimeout(timer);
    if (end !== 'stopped') {
      host.kill();
      log(`[serve] ${end === 'overdue' ? 'not stopped within the grace period' : 'second signal'}: agents killed`);
    }
    return signals.exitCode();
  } finally {
    signals.dispose();
    lock?.release();
  }
}

/** Past the grace period, how long the stop may still take (connectors closing, answers written) before a kill. */
const KILL_MARGIN_MS = 3_000;

type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';
const EXIT_CODES: Record<StopSignal, number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

/**
 * SIGTERM, SIGINT and SIGHUP (the terminal it runs in closed) from the start of the command: `first` resolves with the first signal, `second` (with null)
 * at the next one. Installed before anything starts, so no state leaves a signal to the default (an exit that
 * skips killing the agents) or ignores a second one.
 */
function watchStopSignals(log: (line: string) => void) {
  const first = Promise.withResolvers<StopSignal>();
  const second = Promise.withResolvers<null>();
  let signalled: StopSignal | undefined;
  // Stopped by the host itself (its serve lock lost), not by a signal: it exits 1.
  let failed = false;
  const onSignal = (signal: StopSignal) => {
    if (signalled) return second.resolve(null);
    signalled = signal;
    log(`[serve] ${signal}: no new requests; letting running turns finish`);
    first.resolve(signal);
  };
  const listeners = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map(
    (signal) => [signal, () => onSignal(signal)] as const,
  );
  for (const [signal, listener] of listeners) process.on(signal, listener);
  return {
    first: first.promise,
    second: second.promise,
    signalled: () => signalled !== undefined,
    exitCode: () => (failed ? 1 : EXIT_CODES[signalled ?? 'SIGTERM']),
    /** Stops as SIGTERM would, saying why; the exit code is 1. */
    stop(why: string) {
      if (signalled) return;
      signalled = 'SIGTERM';
      failed = true;
      log(why);
      log('[serve] stopping: no new requests; letting running turns finish');
      first.resolve('SIGTERM');
    },
    dispose() {
      for (const [signal, listener] of listeners) process.off(signal, listener);
    },
  };
}

/** With --nats (or GOONDAN_NATS_URL): the NATS transport, its namespace the served Swarm's name by default. */
async function natsTransport(
  config: ReturnType<typeof natsConfigOf>,
  bundle: Bundle,
  swarm: string | undefined,
  log: (line: string) => void,
) {
  if (!config) return undefined;
  const { createNatsSwarmTransport, resolveSwarm } = await import('@goondan/core');
  const namespace = config.namespace ?? resolveSwarm(bundle, swarm)?.name ?? 'default';
  const transport = await createNatsSwarmTransport({ ...config, namespace });
  log(`[serve] agents run on gdn workers: NATS ${natsServersLabel(config.servers)}, namespace ${namespace}`);
  return transport;
}
