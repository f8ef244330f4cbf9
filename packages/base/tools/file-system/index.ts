import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ToolContext, ToolHandler } from '@goondan/core';
import { GoondanError } from '@goondan/core';
import { type ResolvedPath, resolveInsideWorkdir } from '../../src/resolve-inside-workdir.ts';
import { completeUtf8Length, decodeUtf8Strict } from '../../src/utf8.ts';
import { remove } from './delete.ts';
import { replace } from './replace.ts';

export const DEFAULT_READ_BYTES = 100_000;
export const MAX_READ_BYTES = 1_000_000;
export const MAX_WRITE_BYTES = 10 * 1024 * 1024;
export const DEFAULT_LIST_ENTRIES = 1_000;
export const MAX_LIST_ENTRIES = 10_000;

interface ReadInput {
  path: string;
  maxBytes?: number;
  offset?: number;
}

interface WriteInput {
  path: string;
  content: string;
  append?: boolean;
}

interface ListInput {
  path?: string;
  recursive?: boolean;
  maxEntries?: number;
}

type EntryType = 'file' | 'dir' | 'symlink' | 'other';

interface ListEntry {
  /** Path relative to the listed directory, `/`-separated. */
  name: string;
  type: EntryType;
  /** Size in bytes for files; null for the rest. */
  size: number | null;
}

function bounded(value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.min(Math.max(min, Math.floor(value)), max);
}

function notFound(target: ResolvedPath, what = 'file'): GoondanError {
  return new GoondanError('E_FILE_NOT_FOUND', `No ${what} at '${target.relativePath}' (inside the workdir).`);
}

/** Errors of open(2) that have a code of their own. */
function openFailure(thrown: unknown, userPath: string, target: ResolvedPath): unknown {
  const code = (thrown as { code?: string }).code;
  if (code === 'ELOOP') {
    return new GoondanError(
      'E_PATH_OUTSIDE_WORKDIR',
      `Path '${userPath}' became a symbolic link while in use; refused.`,
    );
  }
  if (code === 'ENOENT') return notFound(target);
  if (code === 'EISDIR')
    return new GoondanError('E_FILE_NOT_FOUND', `'${target.relativePath}' is a directory, not a file.`);
  if (code === 'ENXIO')
    return new GoondanError('E_FILE_NOT_FOUND', `'${target.relativePath}' is a special file, not a regular file.`);
  return thrown;
}

async function read(ctx: ToolContext, input: ReadInput) {
  const target = await resolveInsideWorkdir(ctx.workdir, input.path);
  if (!target.exists) throw notFound(target);
  const maxBytes = bounded(input.maxBytes, DEFAULT_READ_BYTES, 1, MAX_READ_BYTES);
  const offset = bounded(input.offset, 0, 0, Number.MAX_SAFE_INTEGER);
  // O_NOFOLLOW: the resolved path has no symlink left; one appearing now (a swap) fails instead of being followed.
  // O_NONBLOCK: opening a FIFO must not hang; anything but a regular file is refused below.
  const flags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  const handle = await open(target.realPath, flags).catch((thrown) => {
    throw openFailure(thrown, input.path, target);
  });
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) {
      throw new GoondanError(
        'E_FILE_NOT_FOUND',
        `'${target.relativePath}' is a ${stats.isDirectory() ? 'directory' : 'special file'}, not a file; use file-system__list for directories.`,
      );
    }
    const wanted = Math.max(0, Math.min(maxBytes, stats.size - offset));
    const buffer = new Uint8Array(wanted);
    let filled = 0;
    while (filled < wanted) {
      const { bytesRead } = await handle.read(buffer, filled, wanted - filled, offset + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    const truncated = offset + filled < stats.size;
    let bytes = buffer.subarray(0, filled);
    if (truncated) bytes = bytes.subarray(0, completeUtf8Length(bytes));
    const text = decodeUtf8Strict(bytes);
    return {
      path: target.relativePath,
      size: stats.size,
      offset,
      bytesRead: bytes.length,
      truncated,
      encoding: text === null ? 'base64' : 'utf-8',
      content: text ?? Buffer.from(bytes).toString('base64'),
    };
  } finally {
    await handle.close();
  }
}

async function write(ctx: ToolContext, input: WriteInput) {
  const content = input.content;
  const length = Buffer.byteLength(content, 'utf8');
  if (length > MAX_WRITE_BYTES) {
    throw new GoondanError(
      'E_FILE_TOO_LARGE',
      `Content is ${length} bytes; at most ${MAX_WRITE_BYTES} bytes can be written per call.`,
    );
  }
  const target = await resolveInsideWorkdir(ctx.workdir, input.path);
  if (target.relativePath === '.')
    throw new GoondanError('E_FILE_NOT_FOUND', 'Give the path of a file to write, not the workdir.');
  await mkdir(dirname(target.realPath), { recursive: true });
  const mode = input.append === true ? constants.O_APPEND : constants.O_TRUNC;
  const flags = constants.O_WRONLY | constants.O_CREAT | mode | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  const handle = await open(target.realPath, flags, 0o644).catch((thrown) => {
    throw openFailure(thrown, input.path, target);
  });
  try {
    if (!(await handle.stat()).isFile()) {
      throw new GoondanError('E_FILE_NOT_FOUND', `'${target.relativePath}' is a special file, not a regular file.`);
    }
    await handle.writeFile(content, 'utf8');
    const stats = await handle.stat();
    return { path: target.relativePath, size: stats.size, bytesWritten: length, written: true };
  } finally {
    await handle.close();
  }
}

function typeOf(stats: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): EntryType {
  if (stats.isSymbolicLink()) return 'symlink';
  if (stats.isDirectory()) return 'dir';
  if (stats.isFile()) return 'file';
  return 'other';
}

async function list(ctx: ToolContext, input: ListInput) {
  const target = await resolveInsideWorkdir(ctx.workdir, input.path ?? '.');
  if (!target.exists) throw notFound(target, 'directory');
  const stats = await stat(target.realPath);
  if (!stats.isDirectory()) {
    throw new GoondanError(
      'E_FILE_NOT_FOUND',
      `'${target.relativePath}' is a file, not a directory; use file-system__read.`,
    );
  }
  const maxEntries = bounded(input.maxEntries, DEFAULT_LIST_ENTRIES, 1, MAX_LIST_ENTRIES);
  const entries: ListEntry[] = [];
  let truncated = false;
  // Breadth first, names sorted; symlinks are reported, never followed.
  const queue: string[] = [''];
  walk: while (queue.length > 0) {
    const prefix = queue.shift()!;
    const directory = prefix === '' ? target.realPath : `${target.realPath}/${prefix}`;
    const names = (await readdir(directory).catch(() => [] as string[])).sort();
    for (const name of names) {
      if (entries.length >= maxEntries) {
        truncated = true;
        break walk;
      }
      const relativeName = prefix === '' ? name : `${prefix}/${name}`;
      const entryStats = await lstat(`${directory}/${name}`).catch(() => undefined);
      if (!entryStats) continue;
      const type = typeOf(entryStats);
      entries.push({ name: relativeName, type, size: type === 'file' ? entryStats.size : null });
      if (type === 'dir' && input.recursive === true) queue.push(relativeName);
    }
  }
  return { path: target.relativePath, entries, truncated };
}

export const handlers: Record<string, ToolHandler> = { read, write, list, replace, delete: remove };
