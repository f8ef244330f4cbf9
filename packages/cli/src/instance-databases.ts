import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { findBundleDir, GoondanError, type InstanceDatabaseFile, listInstanceDatabases } from '@goondan/core';
import { bundleNotFoundAt } from './bundle-not-found.ts';

/**
 * The instance databases a command reads (`gdn audit`, `gdn approvals`) without loading the bundle: every one
 * under the bundle's state directory, or those of `--agent` / `--instance`. When a filter matches nothing the
 * message names the instances that do exist.
 * @throws GoondanError E_BUNDLE_NOT_FOUND; E_INSTANCE_NOT_FOUND when `--agent` / `--instance` match no database.
 */
export function instanceDatabasesFor(flags: { bundle?: string; agent?: string; instance?: string }): {
  dir: string;
  all: InstanceDatabaseFile[];
  chosen: InstanceDatabaseFile[];
} {
  const dir = flags.bundle ? resolve(flags.bundle) : findBundleDir(process.cwd());
  if (flags.bundle && !existsSync(join(dir, 'goondan.yaml'))) {
    throw bundleNotFoundAt(flags.bundle);
  }
  const all = listInstanceDatabases({ rootDir: dir });
  const chosen = all.filter(
    (file) =>
      (flags.agent === undefined || file.agentName === flags.agent) &&
      (flags.instance === undefined || file.instanceKey === flags.instance),
  );
  if (chosen.length > 0 || (flags.agent === undefined && flags.instance === undefined)) return { dir, all, chosen };
  const wanted = `${flags.agent ?? '*'}/${flags.instance ?? '*'}`;
  const known = all.map((file) => `${file.agentName}/${file.instanceKey}`).join(', ');
  throw new GoondanError(
    'E_INSTANCE_NOT_FOUND',
    `No instance database for ${wanted} under ${join(dir, '.goondan', 'instances')}. ${
      known ? `Instances with one: ${known}.` : 'No agent instance of this bundle has run yet.'
    }`,
    {
      suggestion: known
        ? 'Name one of the instances listed (--agent, --instance), or run that agent first.'
        : 'Run an agent of the bundle first (gdn run, gdn chat, gdn serve); its instance database is made then.',
    },
  );
}
