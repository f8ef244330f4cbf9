import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { resolveInsideWorkdir } from '@goondan/base';
import { GoondanError } from '@goondan/core/errors';

const MAX_ENTRIES = 500;

/** The entries of a folder of the workdir (name, type, size), folders first, at most 500. */
export async function listDir(workdir: string, path: string | undefined) {
  const resolved = await resolveInsideWorkdir(workdir, path ?? '.');
  if (!resolved.exists)
    throw new GoondanError('E_FILE_NOT_FOUND', `'${resolved.relativePath}' does not exist in the workdir.`);
  if (!(await stat(resolved.realPath)).isDirectory()) {
    throw new GoondanError('E_FILE_NOT_FOUND', `'${resolved.relativePath}' is a file, not a folder.`);
  }
  const entries = await readdir(resolved.realPath, { withFileTypes: true });
  const kept = entries.slice(0, MAX_ENTRIES);
  const listed = await Promise.all(
    kept.map(async (entry) => {
      const type = entry.isDirectory() ? 'folder' : entry.isSymbolicLink() ? 'link' : entry.isFile() ? 'file' : 'other';
      const size =
        type === 'file' ? ((await stat(join(resolved.realPath, entry.name)).catch(() => null))?.size ?? null) : null;
      return { name: entry.name, type, size };
    }),
  );
  listed.sort((a, b) => Number(b.type === 'folder') - Number(a.type === 'folder') || a.name.localeCompare(b.name));
  return { path: resolved.relativePath, entries: listed, truncated: entries.length > MAX_ENTRIES };
}
