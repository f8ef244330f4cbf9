import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh directory under the system temp dir (realpath'd); remove it with `cleanup`. */
export async function makeTempDir(prefix = 'goondan-base-'): Promise<string> {
  return realpath(await mkdtemp(join(tmpdir(), prefix)));
}

export async function cleanup(...paths: string[]): Promise<void> {
  await Promise.all(paths.map((path) => rm(path, { recursive: true, force: true })));
}

/** The code of the GoondanError a promise rejects with ('resolved' when it does not reject). */
export async function errorCodeOf(work: Promise<unknown> | unknown): Promise<string> {
  try {
    await work;
  } catch (thrown) {
    return (thrown as { code?: string }).code ?? `no code: ${String(thrown)}`;
  }
  return 'resolved';
}

/** Every file and directory under `root` with its content, to prove nothing there changed. */
export function snapshotTree(root: string, prefix = ''): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const name of readdirSync(join(root, prefix)).sort()) {
    const path = prefix === '' ? name : `${prefix}/${name}`;
    if (statSync(join(root, path)).isDirectory()) {
      entries[`${path}/`] = 'dir';
      Object.assign(entries, snapshotTree(root, path));
    } else entries[path] = readFileSync(join(root, path), 'utf8');
  }
  return entries;
}
