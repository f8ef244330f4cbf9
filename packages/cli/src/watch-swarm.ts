import { type FSWatcher, watch } from 'node:fs';
import { relative } from 'node:path';
import { type Bundle, resolveSwarm, type SwarmTopology } from '@goondan/core';
import { printProblems } from './commands/validate.ts';
import { openBundle } from './open-bundle.ts';
import type { AgentSession } from './open-session.ts';
import { useColor } from './terminal.ts';

const DEBOUNCE_MS = 150;

/**
 * Edit & Restart (`--watch`): on every change under the bundle directory (not .goondan/), reload and validate the
 * bundle; when it is valid, the Orchestrator restarts only the agent instances whose resources changed — their
 * conversations are on disk and resume. An invalid bundle is reported and the running swarm is left as it was.
 * Resolves when `stopped` does.
 */
export async function watchSwarm(options: {
  session: Pick<AgentSession, 'orchestrator' | 'bundle'>;
  swarm?: string;
  /** The bundle and Swarm to run from a reloaded bundle (default: its Swarm as it is); null: none. */
  resolve?: (bundle: Bundle) => { bundle: Bundle; topology: SwarmTopology } | null;
  stopped: Promise<void>;
  /** The "watching" line waits for this (the first turn): changes are reloaded from the start all the same. */
  announceAfter?: Promise<void>;
  log: (line: string) => void;
}): Promise<void> {
  const { session, log } = options;
  const orchestrator = session.orchestrator;
  if (!orchestrator) return;
  const dir = session.bundle.rootDir;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let reloading = Promise.resolve();
  const reload = async () => {
    const opened = await openBundle(dir);
    if (!opened.bundle) {
      log('[watch] the bundle has problems; the running agents are left as they were:');
      printProblems(opened.dir, opened.problems, useColor(process.stderr));
      return;
    }
    const served = options.resolve
      ? options.resolve(opened.bundle)
      : { bundle: opened.bundle, topology: resolveSwarm(opened.bundle, options.swarm) };
    if (!served?.topology) {
      log('[watch] the bundle no longer declares a Swarm; the running agents are left as they were.');
      return;
    }
    const { restarted, stopped } = orchestrator.reload(served.bundle, served.topology);
    const parts = [
      `restarted ${restarted.join(', ') || 'none'}`,
      ...(stopped.length ? [`stopped ${stopped.join(', ')}`] : []),
    ];
    log(`[watch] reloaded: ${parts.join('; ')}`);
  };
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dir, { recursive: true }, (_event, filename) => {
      const name = filename ? relative('.', String(filename)) : '';
      if (name.startsWith('.goondan') || name.includes('node_modules')) return;
      // Only what can change a resource: YAML and code. Output files written into the bundle must not loop reloads.
      if (name !== '' && !/\.(ya?ml|[cm]?[jt]sx?|json)$/.test(name)) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        reloading = reloading
          .then(reload)
          .catch((thrown) => log(`[watch] reload failed: ${(thrown as Error)?.message}`));
      }, DEBOUNCE_MS);
    });
    void (options.announceAfter ?? Promise.resolve()).then(() =>
      log(`[watch] watching ${dir} for changes; Ctrl-C to stop.`),
    );
    await options.stopped;
  } finally {
    clearTimeout(timer);
    watcher?.close();
    await reloading;
  }
}
