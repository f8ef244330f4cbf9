import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import {
  type DirectoryHandle,
  entryPath,
  openDirectoryStrict,
  release,
  verifyOpened,
  type Workdir,
} from './directory-handle.ts';

/**
 * Opens the entry `name` of an open directory with `O_NOFOLLOW` (a link put there fails with ELOOP instead of being
 * followed) and checks what was opened lies inside the workdir. Errors of open(2) come as they are.
 */
export async function openEntry(options: {
  workdir: Workdir;
  parent: DirectoryHandle;
  name: string;
  flags: number;
  mode?: number;
}): Promise<FileHandle> {
  const { workdir, parent, name, flags, mode } = options;
  const handle = await open(entryPath(parent, name), flags | constants.O_NOFOLLOW, mode);
  try {
    verifyOpened(workdir, handle.fd, [...parent.components, name]);
  } catch (thrown) {
    await handle.close();
    throw thrown;
  }
  return handle;
}

/** Opens a file by the names it was found under (from the workdir, none of them a link), as a plan being applied. */
export async function openEntryStrict(options: {
  workdir: Workdir;
  components: readonly string[];
  flags: number;
}): Promise<FileHandle> {
  const { workdir, components, flags } = options;
  const parent = openDirectoryStrict(workdir, workdir, components.slice(0, -1));
  try {
    return await openEntry({ workdir, parent, name: components[components.length - 1]!, flags });
  } finally {
    release(parent);
  }
}
