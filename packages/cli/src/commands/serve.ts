import type { Bundle } from '@goondan/core';
import { parseCommandArgs } from '../cli-args.ts';
import { natsConfigOf, natsFlagSpec, natsFlagsHelp } from '../nats-flags.ts';
import { openBundle } from '../open-bundle.ts';
import { checkListenAddress } from '../serve/check-bearer-token.ts';
import { UsageError, useColor } from '../terminal.ts';
import { watchSwarm } from '../watch-swarm.ts';
import { wholeNumber } from '../whole-number.ts';
import { printProblems } from './validate.ts';

export const serveHelp = `Usage: gdn serve [--host H] [--port P] [--token T] [--watch] [--nats URL] [--bundle DIR]

Runs the bundle's agents and keeps running: an Orchestrator (one process per agent instance), the bundle's
scheduler and channels, and an HTTP API — OpenAI-compatible chat completions (model = agent name), events,
conversations, approvals and schedules. See docs/serve.md.

Options:
  --host H         address to listen on (default 127.0.0.1); any non-loopback address needs a token
  --port P         port (default 8787; 0 picks a free one); the URL is printed on standard error
  --token T        require 'Authorization: Bearer T' (default: the GOONDAN_SERVE_TOKEN environment variable)
  --allow-origin L web pages allowed to call besides loopback ones (CORS): comma-separated origins, or *
  --instance K     instance key of requests that name none (default: the Swarm's instanceKey, or "default")
  --swarm NAME     the Swarm to serve when the bundle declares several (without one, every Agent is served)
  --watch          reload when the bundle's files change (without it, only when its git revision moves, as an
                   activated changeset does): only agents whose resources changed restart
  --grace MS       how long running turns may take to finish at shutdown (default 10000)
  --shared-state   with --nats: the workers see this bundle's .goondan/ (one machine, or a shared file system)
${natsFlagsHelp}
                   with --nats, agent processes run on gdn workers (gdn worker --nats URL), not here
  --bundle DIR     the bundle directory (default: the current directory or a parent with goondan.yaml)

SIGTERM or Ctrl-C stop taking requests and let running turns finish (a second one kills the agents).
Exit status: 0 stopped, 1 error (invalid bundle, port in use, no token beyond loopback), 2 usage error,
130 after SIGINT, 143 after SIGTERM.`;

const DEFAULT_PORT = 8787;

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
  const token = values.token ?? (process.env.GOONDAN_SERVE_TOKEN || undefined);
  const hostname = values.host ?? '127.0.0.1';
  // Before the bundle is loaded: a refused address costs nothing.
  checkListenAddress(hostname, token);
  const opened = await openBundle(values.bundle);
  if (!opened.bundle) {
    printProblems(opened.dir, opened.problems, useColor(process.stderr));
    return 1;
  }
  const log = (line: string) => console.error(line);
  const transport = await natsTransport(natsConfigOf(values), opened.bundle, values.swarm, log);
  // Loaded here, not at start-up: no other command pays for the HTTP API and the channels.
  const [{ startServeHost }, { hostParts }] = await Promise.all([
    import('../serve/serve-host.ts'),
    import('../serve/host-parts.ts'),
  ]);
  const host = await startServeHost({
    bundle: opened.bundle,
    hostname,
    port,
    log,
    parts: hostParts,
    ...(values.swarm ? { swarm: values.swarm } : {}),
    ...(values.instance ? { instanceKey: values.instance } : {}),
    ...(token ? { token } : {}),
    ...(values['allow-origin']
      ? { allowedOrigins: values['allow-origin'].split(',').map((origin) => origin.trim()) }
      : {}),
    ...(gracePeriodMs === undefined ? {} : { gracePeriodMs }),
    ...(transport ? { transport } : {}),
  }).catch(async (thrown) => {
    await transport?.close();
    throw thrown;
  });
  const stopped = Promise.withResolvers<'SIGINT' | 'SIGTERM'>();
  let signalled: 'SIGINT' | 'SIGTERM' | undefined;
  const onSignal = (signal: 'SIGINT' | 'SIGTERM') => {
    // A second signal: kill the agents now (their turns end as failed).
    if (signalled) return host.orchestrator.killAll();
    signalled = signal;
    log(`[serve] ${signal}: no new requests; letting running turns finish`);
    stopped.resolve(signal);
  };
  const listeners = (['SIGINT', 'SIGTERM'] as const).map((signal) => [signal, () => onSignal(signal)] as const);
  for (const [signal, listener] of listeners) process.on(signal, listener);
  const topology = host.context.topology();
  log(`[serve] serving ${topology.agents.join(', ')} (swarm ${topology.name}) on ${host.url}`);
  log(`[serve] OpenAI-compatible base URL: ${host.url}/v1${token ? ' (bearer token required)' : ''}`);
  // An activated changeset (a new git revision of the bundle) always reloads; --watch also reloads on every save.
  const watching = watchSwarm({
    session: { orchestrator: host.orchestrator, bundle: host.context.bundle() },
    resolve: (bundle) => host.serve(bundle),
    stopped: stopped.promise.then(() => {}),
    revisionsOnly: values.watch !== true,
    log,
  });
  try {
    await stopped.promise;
    await watching;
    await host.stop(signalled ?? 'stopped');
    await transport?.close();
    log('[serve] stopped');
  } finally {
    for (const [signal, listener] of listeners) process.off(signal, listener);
  }
  return signalled === 'SIGINT' ? 130 : 143;
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
  log(`[serve] agents run on gdn workers: NATS ${String(config.servers)}, namespace ${namespace}`);
  return transport;
}
