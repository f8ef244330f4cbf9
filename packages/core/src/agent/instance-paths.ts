import { join } from 'node:path';
import { GoondanError } from '../errors/goondan-error.ts';

const instanceKeyPattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/**
 * Where an agent instance keeps its state: `<bundle>/.goondan/instances/<agent>/<instance>/state.db`, and its
 * workspace (spec §2.5.1 workdir): `<bundle>/.goondan/workspaces/<agent>/<instance>`.
 */
export function instancePaths(options: { rootDir: string; agentName: string; instanceKey: string; stateDir?: string }) {
  if (!instanceKeyPattern.test(options.instanceKey)) {
    throw new GoondanError(
      'E_INSTANCE_KEY_INVALID',
      `Instance key '${options.instanceKey}' must be 1-128 letters, digits, '_', '.' or '-', starting with a letter or digit.`,
    );
  }
  const base = options.stateDir ?? join(options.rootDir, '.goondan');
  return {
    databaseFile: join(base, 'instances', options.agentName, options.instanceKey, 'state.db'),
    workdir: join(base, 'workspaces', options.agentName, options.instanceKey),
  };
}
