import { type Dirent, existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { GoondanError } from '../errors/goondan-error.ts';
import { quotedValue } from '../errors/quoted-value.ts';

const instanceKeyPattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** An instance key: 1-128 letters, digits, `_`, `.`, `-`, starting with a letter or digit (a path part, never `..`). */
export function isInstanceKey(value: string): boolean {
  return instanceKeyPattern.test(value);
}

/**
 * The error for a value that is not an instance key. The value is the caller's (a flag, a header, a model's request):
 * quoted short, its line breaks and other control characters escaped, so the error stays one readable line.
 */
export function invalidInstanceKey(value: string): GoondanError {
  return new GoondanError(
    'E_INSTANCE_KEY_INVALID',
    `Instance key ${quotedValue(value)} must be 1-128 letters, digits, '_', '.' or '-', starting with a letter or digit.`,
  );
}

/**
 * Where an agent instance keeps its state: `<bundle>/.goondan/instances/<agent>/<instance>/state.db`, and its
 * workspace (spec §2.5.1 workdir): `<bundle>/.goondan/workspaces/<agent>/<instance>`.
 */
export function instancePaths(options: { rootDir: string; agentName: string; instanceKey: string; stateDir?: string }) {
  if (!isInstanceKey(options.instanceKey)) throw invalidInstanceKey(options.instanceKey);
  const base = options.stateDir ?? join(options.rootDir, '.goondan');
  return {
    databaseFile: join(base, 'instances', options.agentName, options.instanceKey, 'state.db'),
    workdir: join(base, 'workspaces', options.agentName, options.instanceKey),
  };
}

/** One instance database found on disk. */
export interface InstanceDatabaseFile {
  agentName: string;
  instanceKey: string;
  databaseFile: string;
}

/**
 * The instance databases that exist under `<bundle>/.goondan/instances/<agent>/<instance>/state.db`, by agent
 * then instance. Reads directories only: nothing is opened or created.
 */
export function listInstanceDatabases(options: { rootDir: string; stateDir?: string }): InstanceDatabaseFile[] {
  const root = join(options.stateDir ?? join(options.rootDir, '.goondan'), 'instances');
  if (!existsSync(root)) return [];
  const found: InstanceDatabaseFile[] = [];
  // A directory linked in its place counts as one: gdn run follows the link, so the readers list what it wrote.
  const isDirectory = (entry: Dirent, path: string) =>
    entry.isDirectory() ||
    (entry.isSymbolicLink() && statSync(path, { throwIfNoEntry: false })?.isDirectory() === true);
  for (const agent of readdirSync(root, { withFileTypes: true })) {
    if (!isDirectory(agent, join(root, agent.name))) continue;
    for (const instance of readdirSync(join(root, agent.name), { withFileTypes: true })) {
      const databaseFile = join(root, agent.name, instance.name, 'state.db');
      if (isDirectory(instance, join(root, agent.name, instance.name)) && existsSync(databaseFile))
        found.push({ agentName: agent.name, instanceKey: instance.name, databaseFile });
    }
  }
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return found.sort((a, b) => byName(a.agentName, b.agentName) || byName(a.instanceKey, b.instanceKey));
}
