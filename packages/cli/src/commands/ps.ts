import { existsSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { type AgentProcessInfo, findBundleDir, orchestratorStateDir, readOrchestratorStates } from '@goondan/core';
import { bundleNotFoundAt } from '../bundle-not-found.ts';
import { parseCommandArgs } from '../cli-args.ts';
import { formatDuration } from '../format-duration.ts';
import { paint, printable, UsageError, useColor } from '../terminal.ts';
import { formatTable } from '../text-table.ts';

export const psHelp = `Usage: gdn ps [--json] [--bundle DIR]

Shows the agent instances of every Orchestrator running on the bundle (started by gdn run or gdn chat with a
Swarm): state (waiting, starting, ready, stopping, backoff, crash-loop, stopped), pid, queue depth (events waiting
behind the running turn), turns served and restarts.

Options:
  --json         the orchestrators and their processes as JSON
  --bundle DIR   the bundle directory (default: the current directory or a parent with goondan.yaml)`;

function note(process: AgentProcessInfo, now: number): string {
  const parts: string[] = [];
  if (process.state === 'ready' && process.startedAt)
    parts.push(`up ${formatDuration(now - process.startedAt, { units: 2 })}`);
  if (process.nextRestartAt) parts.push(`restart in ${formatDuration(process.nextRestartAt - now, { units: 2 })}`);
  if (process.lastExit && process.state !== 'ready') {
    parts.push(
      process.lastExit.signal ? `last exit ${process.lastExit.signal}` : `last exit code ${process.lastExit.code}`,
    );
  }
  return parts.join(', ');
}

export async function psCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs({ command: 'ps', argv, spec: { json: { type: 'boolean' } } });
  if (values.help) {
    console.log(psHelp);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`, 'ps');
  const dir = values.bundle ? resolve(values.bundle) : findBundleDir(process.cwd());
  if (values.bundle && !existsSync(resolve(dir, 'goondan.yaml'))) {
    throw bundleNotFoundAt(values.bundle);
  }
  const { live, stale } = readOrchestratorStates(orchestratorStateDir({ rootDir: dir }));
  // Files left by orchestrators that were killed before they could remove them: their pid is gone.
  for (const file of stale) rmSync(file, { force: true });
  if (values.json) {
    console.log(JSON.stringify({ bundle: dir, orchestrators: live }, null, 2));
    return 0;
  }
  if (live.length === 0) {
    console.log(`No orchestrator running for ${dir}.`);
    return 0;
  }
  const color = useColor();
  const now = Date.now();
  // The state files are read from the bundle's .goondan/ (a copied bundle brings its own): their text is shown
  // without its control characters.
  for (const snapshot of live) {
    console.log(
      paint(
        printable(
          `orchestrator ${snapshot.pid}  swarm ${snapshot.swarm}  instance ${snapshot.instanceKey}  up ${formatDuration(now - snapshot.startedAt, { units: 2 })}`,
        ),
        'bold',
        color,
      ),
    );
    const rows = [['AGENT', 'INSTANCE', 'STATE', 'PID', 'QUEUE', 'TURNS', 'RESTARTS', 'NOTE']];
    for (const process of snapshot.processes) {
      rows.push(
        [
          process.agent,
          process.instanceKey,
          process.state,
          process.pid === null ? '-' : String(process.pid),
          String(process.queueDepth),
          String(process.turnsServed),
          String(process.restarts),
          note(process, now),
        ].map((cell) => printable(String(cell))),
      );
    }
    if (snapshot.processes.length === 0) console.log('  (no agent process started yet)');
    else for (const line of formatTable(rows)) console.log(line);
    console.log('');
  }
  return 0;
}
