import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';

interface LockEntry {
  name?: string;
  version?: string;
  resolved?: string;
  link?: boolean;
  optional?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [key: string]: unknown;
}

export interface PackageJson {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  [key: string]: unknown;
}

/**
 * The registry URL of a locked package. npm finds a tarball in its cache by integrity, but only once it knows the
 * URL: a lock entry without `resolved` (this repository sets omit-lockfile-registry-resolved) makes it fetch metadata.
 */
function registryTarball(path: string, entry: LockEntry): string {
  const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
  const base = name.slice(name.lastIndexOf('/') + 1);
  return `https://registry.npmjs.org/${name}/-/${base}-${entry.version}.tgz`;
}

/** Where Node would find `name` required from the package at `from` (a lockfile path), in the repository's lock. */
function locate(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = base ? `${base}/node_modules/${name}` : `node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!base) return undefined;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut === -1 ? '' : base.slice(0, cut);
  }
}

function wanted(entry: LockEntry): [string, boolean][] {
  const optionalPeers = entry.peerDependenciesMeta ?? {};
  return [
    ...Object.keys(entry.dependencies ?? {}).map((name): [string, boolean] => [name, false]),
    ...Object.keys(entry.optionalDependencies ?? {}).map((name): [string, boolean] => [name, true]),
    ...Object.keys(entry.peerDependencies ?? {}).map((name): [string, boolean] => [
      name,
      optionalPeers[name]?.optional === true,
    ]),
  ];
}

/**
 * The package.json and package-lock.json with which `npm ci --offline` installs a project (e.g. one `gdn init`
 * wrote) from packed workspace tarballs instead of the registry: @goondan packages become `file:` tarballs, every
 * other package is pinned to the version in the repository's lockfile. Offline, npm needs only the tarballs, which
 * the repository's own `npm install` left in the npm cache; without a lock it would ask the registry for metadata.
 */
export async function scratchLockfile(options: {
  repoLockfile: string;
  appDir: string;
  packageJson: PackageJson;
  /** Package name → the tarball `npm pack` wrote for it. */
  tarballs: Record<string, string>;
}): Promise<{ packageJson: PackageJson; lockfile: object }> {
  const { packages: repo } = JSON.parse(await readFile(options.repoLockfile, 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  // Workspace packages appear in the lock as links from node_modules/NAME to their folder.
  const workspaceOf = new Map<string, string>();
  for (const [path, entry] of Object.entries(repo)) {
    if (entry.link && entry.resolved) workspaceOf.set(path, entry.resolved);
  }
  const spec = (name: string) => `file:${relative(options.appDir, options.tarballs[name]!)}`;
  const rewrite = (deps: Record<string, string> | undefined) =>
    deps &&
    Object.fromEntries(
      Object.entries(deps).map(([name, range]) => [name, name in options.tarballs ? spec(name) : range]),
    );
  const packageJson: PackageJson = {
    ...options.packageJson,
    dependencies: rewrite(options.packageJson.dependencies),
    devDependencies: rewrite(options.packageJson.devDependencies),
  };
  const out: Record<string, LockEntry> = {};
  // (path in the repository's lock, path in the new lock)
  const queue: [string, string][] = [];
  const visit = (from: string, name: string, optional: boolean) => {
    const found = locate(repo, from, name);
    if (!found) {
      if (optional) return;
      throw new Error(`scratchLockfile: '${name}' (needed by '${from || 'the root'}') is not in package-lock.json`);
    }
    const workspace = workspaceOf.get(found);
    const source = workspace ?? found;
    const mapped = workspace ? `node_modules/${name}` : mapWorkspacePath(found);
    if (out[mapped]) return;
    const { dev: _dev, devOptional: _devOptional, peer: _peer, link: _link, name: _name, ...entry } = repo[source]!;
    out[mapped] = workspace
      ? { ...entry, resolved: spec(name) }
      : { ...entry, resolved: entry.resolved ?? registryTarball(found, entry) };
    queue.push([source, mapped]);
  };
  const mapWorkspacePath = (path: string) => {
    for (const [link, dir] of workspaceOf) {
      if (path.startsWith(`${dir}/`)) return `${link}/${path.slice(dir.length + 1)}`;
    }
    return path;
  };
  for (const name of Object.keys({ ...packageJson.dependencies, ...packageJson.devDependencies })) {
    visit('', name, false);
  }
  while (queue.length > 0) {
    const [source] = queue.shift()!;
    for (const [name, optional] of wanted(repo[source]!)) visit(source, name, optional);
  }
  return {
    packageJson,
    lockfile: {
      name: packageJson.name,
      lockfileVersion: 3,
      requires: true,
      packages: {
        '': {
          name: packageJson.name,
          dependencies: packageJson.dependencies,
          devDependencies: packageJson.devDependencies,
        },
        ...out,
      },
    },
  };
}
