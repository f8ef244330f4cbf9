import { resolve } from 'node:path';
import { parseCommandArgs } from '../cli-args.ts';
import { natsConfigOf, natsFlagSpec, natsFlagsHelp, natsServersLabel } from '../nats-flags.ts';
import { openBundle } from '../open-bundle.ts';
import { printable, UsageError, useColor } from '../terminal.ts';
import { wholeNumber } from '../whole-number.ts';
import { printProblems } from './validate.ts';

export const workerHelp = `Usage: gdn worker --nats URL [--namespace N] [--max-agents N] [--bundle DIR]
                  [--nats-creds F] [--nats-nkey F] [--nats-ca F] [--nats-cert F] [--nats-key F]

Hosts agent processes of a swarm whose orchestrator (gdn serve --nats URL) runs on another machine: takes agent
instances from the swarm's queue on NATS, one process each, holding a lease on each instance so that no other
worker runs it. Agent processes use this machine's environment (model keys) and its copy of the bundle.
See docs/transport.md.

Options:
${natsFlagsHelp}
  --max-agents N   run at most N agent processes here (a full worker takes no more until one ends)
  --bundle DIR     this machine's copy of the bundle (default: the orchestrator's path, for a shared file system);
                   with it the namespace defaults to its Swarm's name

SIGTERM, Ctrl-C or SIGHUP kill the agent processes here; their orchestrator restarts them on another worker.
Exit status: 0 stopped, 1 error (NATS unreachable), 2 usage error.`;

export async function workerCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    command: 'worker',
    argv,
    spec: { ...natsFlagSpec, 'max-agents': { type: 'string' } },
  });
  if (values.help) {
    console.log(workerHelp);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`, 'worker');
  const maxAgents = values['max-agents'] === undefined ? undefined : wholeNumber(values['max-agents'], 1);
  if (maxAgents === null)
    throw new UsageError(`--max-agents must be a whole number above 0, got '${values['max-agents']}'`, 'worker');
  const config = natsConfigOf(values);
  if (!config)
    throw new UsageError(
      '--nats URL is needed (or GOONDAN_NATS_URL): the NATS server the host, gdn serve --nats, uses',
      'worker',
    );
  const [{ resolveSwarm, startNatsWorker }, { libraryBundleDirs }] = await Promise.all([
    import('@goondan/core'),
    import('../library-bundles.ts'),
  ]);
  let bundleDir: string | undefined;
  let namespace = config.namespace;
  if (values.bundle) {
    const opened = await openBundle(values.bundle);
    if (!opened.bundle) {
      printProblems(opened.dir, opened.problems, useColor(process.stderr));
      return 1;
    }
    bundleDir = resolve(opened.bundle.rootDir);
    namespace ??= resolveSwarm(opened.bundle)?.name;
  }
  if (!namespace) throw new UsageError('give --namespace N (the Swarm name), or --bundle DIR with a Swarm', 'worker');
  // Its lines quote agent processes' failures: shown without control characters.
  const log = (line: string) => console.error(`[worker] ${printable(line)}`);
  const worker = await startNatsWorker({
    nats: { ...config, namespace },
    libraries: [...libraryBundleDirs],
    ...(bundleDir ? { bundleDir } : {}),
    ...(maxAgents ? { maxAgents } : {}),
    log,
  });
  log(`${worker.workerId} serving namespace ${namespace} on ${natsServersLabel(config.servers)}`);
  // SIGHUP too (the terminal it runs in closed): left to its default, it ended the worker without stopping its agents.
  const signal = await new Promise<NodeJS.Signals>((done) => {
    for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(name, () => done(name));
  });
  log(`${signal}: stopping ${worker.running().size} agent process(es)`);
  await worker.close();
  log('stopped');
  return 0;
}
