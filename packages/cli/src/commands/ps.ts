import { existsSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  type AgentProcessInfo,
  findBundleDir,
  GoondanError,
  orchestratorStateDir,
  readOrchestratorStates,
} from '@goondan/core';
import { parseCommandArgs } from '../cli-args.ts';
import { paint, UsageError, useColor } from '../terminal.ts';

export const psHelp = `Usage: gdn ps [--json] [--bundle DIR]

Shows the agent instances of every Orchestrator running on the bundle (started by gdn run or gdn chat with a
Swarm): state (starting, ready, stopping, backoff, crash-loop, stopped), pid, queue depth (events waiting
behind the running turn), turns served and restarts.

Options:
  --json         the orchestrators and their processes as JSON
  --bundle DIR   the bundle directory (default: the current directory or a parent with goondan.yaml)`;

function duration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  if (ms < 60_000) return `${Math.round(ms / 1000)}s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)}m${Math.round((ms % 60_000) / 1000)}s`;
  return `${Math.floor(ms / 3_600_000)}h${Math.floor((ms % 3_600_000) / 60_000)}m`;
}

function note(process: AgentProcessInfo, now: number): string {
  const parts: string[] = [];
  if (process.state === 'ready' && process.startedAt) parts.push(`up ${duration(now - process.startedAt)}`);
  if (process.nextRestartAt) parts.push(`restart in ${duration(Math.max(0, process.nextRestartAt - now))}`);
  if (process.lastExit && process.state !== 'ready') {
    parts.push(
      process.lastExit.signal ? `last exit ${process.lastExit.signal}` : `last exit code ${process.lastExit.code}`,
    );
  }
  return parts.join(', ');
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd(),
  );
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
    throw new GoondanError('E_BUNDLE_NOT_FOUND', `No goondan.yaml in ${values.bundle}.`);
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
  for (const snapshot of live) {
    console.log(
      paint(
        `orchestrator ${snapshot.pid}  swarm ${snapshot.swarm}  instance ${snapshot.instanceKey}  up ${duration(now - snapshot.startedAt)}`,
        'bold',
        color,
      ),
    );
    const rows = [['AGENT', 'INSTANCE', 'STATE', 'PID', 'QUEUE', 'TURNS', 'RESTARTS', 'NOTE']];
    for (const process of snapshot.processes) {
      rows.push([
        process.agent,
        process.instanceKey,
        process.state,
        process.pid === null ? '-' : String(process.pid),
        String(process.queueDepth),
        String(process.turnsServed),
        String(process.restarts),
        note(process, now),
      ]);
    }
    if (snapshot.processes.length === 0) console.log('  (no agent process started yet)');
    else for (const line of table(rows)) console.log(line);
    console.log('');
  }
  return 0;
}
