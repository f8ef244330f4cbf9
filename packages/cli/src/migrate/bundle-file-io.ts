import { constants } from 'node:fs';
import { open, readdir, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { GoondanError, isProcessAlive, yamlLimits } from '@goondan/core';
import { bundleNotFoundAt } from '../bundle-not-found.ts';

/**
 * The bytes of goondan.yaml, refused unless it is a regular file within the loader's size limit: opened
 * non-blocking, so a FIFO never blocks, and checked on the opened file, so a device or a huge file is never read.
 * Such a file could not load anyway; nothing is written.
 */
export async function readBundleBytes(file: string): Promise<Uint8Array> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => {
    throw bundleNotFoundAt(dirname(file));
  });
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) {
      throw new GoondanError('E_BUNDLE_NOT_FOUND', `${file} is not a regular file; nothing was read or written.`);
    }
    if (stats.size > yamlLimits.maxBytes) {
      throw new GoondanError(
        'E_YAML_LIMIT',
        `${file} is ${stats.size} bytes; bundle files may be at most ${yamlLimits.maxBytes} bytes, so it cannot load. Nothing was written.`,
      );
    }
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/**
 * Replaces `file` with `text` in one step: written and synced to a new file beside it (with the old one's mode),
 * then renamed over it. A process killed or a disk full midway leaves the old file whole, never half of each. A
 * symbolic link is followed, so the file it points at is replaced and the link stays. Owner and group are kept
 * where the system allows (root running it for another user).
 */
export async function replaceFileAtomically(file: string, text: string): Promise<void> {
  const target = await realpath(file);
  const stats = await stat(target);
  const mode = stats.mode & 0o7777;
  const temporary = join(dirname(target), `.${basename(target)}.gdn-migrate-${process.pid}.tmp`);
  await removeDeadScratchFiles(target);
  const handle = await open(temporary, 'wx', mode);
  try {
    try {
      // Run by another user than the file's owner (sudo gdn migrate): the new file keeps the owner and group, so its
      // user can still edit it. Only root may give a file away; for anyone else it is theirs already or not possible.
      if (stats.uid !== process.getuid?.() || stats.gid !== process.getgid?.()) {
        await handle.chown(stats.uid, stats.gid).catch(() => undefined);
      }
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    // A failed write names no path; name the file being replaced (E_PATH_ACCESS shows it).
    if (error instanceof Error && !('path' in error)) Object.assign(error, { path: target });
    throw error;
  }
}

/**
 * Removes the scratch copies (`.goondan.yaml.gdn-migrate-<pid>.tmp`) that a migrate killed before its rename left
 * beside the file, once their process is gone: the old file was kept whole, and nothing else is left behind.
 */
async function removeDeadScratchFiles(target: string): Promise<void> {
  const folder = dirname(target);
  const prefix = `.${basename(target)}.gdn-migrate-`;
  const entries = await readdir(folder).catch(() => [] as string[]);
  for (const entry of entries) {
    if (!entry.startsWith(prefix) || !entry.endsWith('.tmp')) continue;
    const pid = entry.slice(prefix.length, -'.tmp'.length);
    if (/^\d+$/.test(pid) && !isProcessAlive(Number(pid))) await rm(join(folder, entry), { force: true });
  }
}
