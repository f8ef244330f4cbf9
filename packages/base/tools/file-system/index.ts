import { constants } from 'node:fs';
import type { ToolContext, ToolHandler } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';
import { confinementCheckpoint } from '../../src/confinement-test-hook.ts';
import { withWorkdir } from '../../src/directory-handle.ts';
import { type Location, withLocation } from '../../src/locate-inside-workdir.ts';
import { openEntry } from '../../src/open-entry.ts';
import { completeUtf8Length, decodeUtf8Strict } from '../../src/utf8.ts';
import { bounded } from './bounded.ts';
import { remove } from './delete.ts';
import { list } from './list.ts';
import { notFound, openFailure } from './open-failure.ts';
import { replace } from './replace.ts';

export const DEFAULT_READ_BYTES = 100_000;
export const MAX_READ_BYTES = 1_000_000;
export const MAX_WRITE_BYTES = 10 * 1024 * 1024;
export { DEFAULT_LIST_ENTRIES, MAX_LIST_ENTRIES } from './list.ts';

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

function isDirectoryError(target: Location, hint: string): GoondanError {
  return new GoondanError('E_FILE_NOT_FOUND', `'${target.relativePath}' is a directory, not a file; ${hint}.`);
}

async function read(ctx: ToolContext, input: ReadInput) {
  const maxBytes = bounded(input.maxBytes, DEFAULT_READ_BYTES, 1, MAX_READ_BYTES);
  const offset = bounded(input.offset, 0, 0, Number.MAX_SAFE_INTEGER);
  return withWorkdir(ctx.workdir, (workdir) =>
    withLocation(workdir, { path: input.path }, async (target) => {
      if (target.stats === undefined) throw notFound(target);
      if (target.name === null) throw isDirectoryError(target, 'use file-system__list for directories');
      // O_NONBLOCK: opening a FIFO must not hang; anything but a regular file is refused below.
      const flags = constants.O_RDONLY | constants.O_NONBLOCK;
      confinementCheckpoint('read');
      const handle = await openEntry({ workdir, parent: target.parent, name: target.name, flags }).catch((thrown) => {
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
    }),
  );
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
  return withWorkdir(ctx.workdir, (workdir) =>
    withLocation(workdir, { path: input.path, createParents: true }, async (target) => {
      if (target.name === null) {
        if (target.relativePath === '.')
          throw new GoondanError('E_FILE_NOT_FOUND', 'Give the path of a file to write, not the workdir.');
        throw isDirectoryError(target, 'give the path of a file to write');
      }
      const mode = input.append === true ? constants.O_APPEND : constants.O_TRUNC;
      const flags = constants.O_WRONLY | constants.O_CREAT | mode | constants.O_NONBLOCK;
      confinementCheckpoint('write');
      const handle = await openEntry({ workdir, parent: target.parent, name: target.name, flags, mode: 0o644 }).catch(
        (thrown) => {
          throw openFailure(thrown, input.path, target);
        },
      );
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
    }),
  );
}

export const handlers: Record<string, ToolHandler> = { read, write, list, replace, delete: remove };
