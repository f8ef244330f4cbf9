import { type FSWatcher, watch } from 'node:fs';
import { relative } from 'node:path';
import type { Bundle, SwarmTopology } from '@goondan/core';
import { resolveSwarm } from '@goondan/core/session';
import { printProblems } from './commands/validate.ts';
import { openBundle } from './open-bundle.ts';
import type { AgentSession } from './open-session.ts';
import { printable, useColor } from './terminal.ts';

const DEBOUNCE_MS = 150;

/**
 * Edit & Restart (`--watch`): on every change under the bundle directory (not .goondan/), reload and validate the
 * bundle; when it is valid, the Orchestrator restarts only the agent instances whose resources changed — their
 * conversations are on disk and resume. An invalid bundle is reported and the running swarm is left as it was.
 * Resolves when `stopped` does.
 *
 * The reload of `gdn run --watch`, `gdn chat` and `gdn serve`. When the bundle's git revision (HEAD) moved — an
 * activated changeset, a revert, a commit — each restarted agent is told at its next turn which revision is active
 * and what changed (a notice stored before that turn's event; docs/changesets.md#activation). With
 * `revisionsOnly` (gdn chat, gdn serve) only a new revision reloads, not every saved file.
 */
export async function watchSwarm(options: {
  session: Pick<AgentSession, 'orchestrator' | 'bundle'>;
  swarm?: string;
  /** The bundle and Swarm to run from a reloaded bundle (default: its Swarm as it is); null: none. */
  resolve?: (bundle: Bundle) => { bundle: Bundle; topology: SwarmTopology } | null;
  stopped: Promise<void>;
  /** Reload only when the bundle's git revision moved (an activated changeset, a commit), not on every saved file. */
  revisionsOnly?: boolean;
  /** The "watching" line waits for this (the first turn): changes are reloaded from the start all the same. */
  announceAfter?: Promise<void>;
  log: (line: string) => void;
}): Promise<void> {
  const { session, log } = options;
  const orchestrator = session.orchestrator;
  if (!orchestrator) return;
  // Imported here, not at the top: `gdn run` loads this module, and the base barrel costs ~50 ms of every start.
  const { bundleRevision, revisionNotice } = await import('@goondan/base');
  const dir = session.bundle.rootDir;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // The revision the running agents were started from: a reload that moves it tells them.
  let revision: string | null = null;
  let reloading: Promise<void> = bundleRevision(dir).then((found) => {
    revision = found;
  });
  const reload = async () => {
    const now = await bundleRevision(dir);
    if (options.revisionsOnly && (now === null || now === revision)) return;
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
    const notice =
      now && revision && now !== revision
        ? await revisionNotice({ bundleDir: dir, from: revision, to: now })
        : undefined;
    const { restarted, stopped } = orchestrator.reload(served.bundle, served.topology, notice ? { notice } : {});
    const moved = notice && now ? [`revision ${now.slice(0, 12)}`] : [];
    revision = now;
    const parts = [
      `restarted ${restarted.join(', ') || 'none'}`,
      ...(stopped.length ? [`stopped ${stopped.join(', ')}`] : []),
      ...moved,
    ];
    log(`[watch] reloaded: ${parts.join('; ')}`);
  };
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dir, { recursive: true }, (_event, filename) => {
      const name = filename ? relative('.', String(filename)) : '';
      if (name.startsWith('.goondan') || name.includes('node_modules')) return;
      // A commit without a change in the working tree moves a ref (when the repository is the bundle directory).
      const ref =
        options.revisionsOnly === true &&
        (name === '.git/HEAD' || name === '.git/packed-refs' || name.startsWith('.git/refs/heads/'));
      // Only what can change a resource: YAML and code. Output files written into the bundle must not loop reloads.
      if (name !== '' && !ref && !/\.(ya?ml|[cm]?[jt]sx?|json)$/.test(name)) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        reloading = reloading
          .then(reload)
          .catch((thrown) => log(`[watch] reload failed: ${printable(String((thrown as Error)?.message))}`));
      }, DEBOUNCE_MS);
    });
    if (!options.revisionsOnly) {
      void (options.announceAfter ?? Promise.resolve()).then(() =>
        log(`[watch] watching ${dir} for changes; Ctrl-C to stop.`),
      );
    }
    await options.stopped;
  } finally {
    clearTimeout(timer);
    watcher?.close();
    await reloading;
  }
}
