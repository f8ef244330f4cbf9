import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentProcessInfo } from './agents-runtime.ts';
import { isProcessAlive } from './is-process-alive.ts';

/** What a running orchestrator publishes for `gdn ps`: one JSON file per orchestrator, named by its pid. */
export interface OrchestratorSnapshot {
  pid: number;
  bundleDir: string;
  swarm: string;
  instanceKey: string;
  startedAt: number;
  updatedAt: number;
  processes: AgentProcessInfo[];
}

/** `<bundle>/.goondan/orchestrator` (or under stateDir). */
export function orchestratorStateDir(options: { rootDir: string; stateDir?: string }): string {
  return join(options.stateDir ?? join(options.rootDir, '.goondan'), 'orchestrator');
}

/** Written whole to a temporary file and renamed, so a reader never sees half a file. */
export function writeOrchestratorState(file: string, snapshot: OrchestratorSnapshot): void {
  mkdirSync(join(file, '..'), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(snapshot, null, 2));
  renameSync(temporary, file);
}

export function removeOrchestratorState(file: string): void {
  rmSync(file, { force: true });
}

/**
 * Snapshots of the orchestrators running on a bundle. A file whose orchestrator pid is gone (it was killed before
 * it could remove it) is stale: listed apart and never shown as running.
 */
export function readOrchestratorStates(dir: string): { live: OrchestratorSnapshot[]; stale: string[] } {
  const live: OrchestratorSnapshot[] = [];
  const stale: string[] = [];
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((name) => /^\d+\.json$/.test(name));
  } catch {
    return { live, stale };
  }
  for (const name of names) {
    const file = join(dir, name);
    try {
      const snapshot = JSON.parse(readFileSync(file, 'utf8')) as OrchestratorSnapshot;
      if (isProcessAlive(snapshot.pid)) live.push(snapshot);
      else stale.push(file);
    } catch {
      stale.push(file);
    }
  }
  live.sort((a, b) => a.startedAt - b.startedAt);
  return { live, stale };
}
