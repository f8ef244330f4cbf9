import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { GuardrailPlan, JsonObject, ToolContext } from '@goondan/core';
import { GoondanError, withGuardrail } from '@goondan/core';
import { confinementCheckpoint } from '../../src/confinement-test-hook.ts';
import { type Workdir, withWorkdir } from '../../src/directory-handle.ts';
import { openEntryStrict } from '../../src/open-entry.ts';
import { decodeUtf8Strict } from '../../src/utf8.ts';
import { candidates, type Skipped } from './replace-candidates.ts';

export { MAX_REPLACE_FILES } from './replace-candidates.ts';
/** Files larger than this are not searched. */
export const MAX_REPLACE_FILE_BYTES = 10 * 1024 * 1024;
/** Occurrences one call may replace. */
export const MAX_REPLACE_OCCURRENCES = 10_000;
const SNIPPET_CHARS = 160;
const SKIPPED_SHOWN = 50;

interface ReplaceInput {
  path: string;
  find: string;
  replace: string;
  glob?: string;
}

/** One file with matches, as planned: what it held (by hash) and where the matches start. */
interface PlannedFile {
  file: string;
  /** Names from the workdir to the file, none of them a link; apply opens it by these again. */
  components: readonly string[];
  hash: bigint;
  offsets: number[];
}

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}…`;
}

/** The line around one match, before and after the replacement, cut to a readable length. */
function snippet(content: string, offset: number, find: string, replacement: string) {
  const lineStart = content.lastIndexOf('\n', offset - 1) + 1;
  const newline = content.indexOf('\n', offset + find.length);
  const lineEnd = newline === -1 ? content.length : newline;
  let from = lineStart;
  let to = lineEnd;
  if (to - from > SNIPPET_CHARS) {
    from = Math.max(lineStart, offset - SNIPPET_CHARS / 4);
    to = Math.min(lineEnd, offset + find.length + SNIPPET_CHARS / 4);
  }
  const head = (from > lineStart ? '…' : '') + content.slice(from, offset);
  const tail = (content.slice(offset + find.length, to) + (to < lineEnd ? '…' : '')).replace(/\r$/, '');
  return { before: head + clip(find, SNIPPET_CHARS) + tail, after: head + clip(replacement, SNIPPET_CHARS) + tail };
}

function offsetsOf(content: string, find: string): number[] {
  const offsets: number[] = [];
  for (let at = content.indexOf(find); at !== -1; at = content.indexOf(find, at + find.length)) offsets.push(at);
  return offsets;
}

/** Splices the replacement in at the planned offsets (never `String.replace`, which reads `$&` in it). */
function replaced(content: string, offsets: number[], find: string, replacement: string): string {
  const parts: string[] = [];
  let last = 0;
  for (const offset of offsets) {
    parts.push(content.slice(last, offset), replacement);
    last = offset + find.length;
  }
  parts.push(content.slice(last));
  return parts.join('');
}

const readFlags = constants.O_RDONLY | constants.O_NONBLOCK;

/** The bytes of a regular file, or why it is not searched. */
async function readText(handle: FileHandle): Promise<{ text: string; bytes: Uint8Array } | { skip: string }> {
  const stats = await handle.stat();
  if (!stats.isFile()) return { skip: 'not a regular file' };
  if (stats.size > MAX_REPLACE_FILE_BYTES) return { skip: `larger than ${MAX_REPLACE_FILE_BYTES} bytes` };
  const bytes = new Uint8Array(await handle.readFile());
  const text = bytes.includes(0) ? null : decodeUtf8Strict(bytes);
  return text === null ? { skip: 'binary (not UTF-8 text)' } : { text, bytes };
}

/** Opened by its names from the workdir, none of them allowed to be a link (one swapped in fails the open). */
async function readCandidate(
  workdir: Workdir,
  components: readonly string[],
): Promise<{ text: string; bytes: Uint8Array } | { skip: string }> {
  const handle = await openEntryStrict({ workdir, components, flags: readFlags }).catch(() => undefined);
  if (!handle) return { skip: 'could not be opened' };
  try {
    return await readText(handle);
  } finally {
    await handle.close();
  }
}

async function planReplace(ctx: ToolContext, input: ReplaceInput): Promise<GuardrailPlan> {
  const { find, replace: replacement } = input;
  if (typeof find !== 'string' || find === '')
    throw new GoondanError('E_TOOL_INVALID_ARGS', 'find must be a non-empty string.');
  if (typeof replacement !== 'string') throw new GoondanError('E_TOOL_INVALID_ARGS', 'replace must be a string.');
  return withWorkdir(ctx.workdir, (workdir) => plan(ctx, workdir, input));
}

async function plan(ctx: ToolContext, workdir: Workdir, input: ReplaceInput): Promise<GuardrailPlan> {
  const { find, replace: replacement } = input;
  const { files, skipped, single } = await candidates({ ctx, workdir, input });
  const planned: PlannedFile[] = [];
  const changes: JsonObject[] = [];
  for (const candidate of files) {
    const read = await readCandidate(workdir, candidate.components);
    if ('skip' in read) {
      if (single) throw new GoondanError('E_TOOL', `'${candidate.file}' is not searched: ${read.skip}.`);
      skipped.push({ file: candidate.file, reason: read.skip });
      continue;
    }
    const offsets = offsetsOf(read.text, find);
    if (offsets.length === 0) continue;
    if (changes.length + offsets.length > MAX_REPLACE_OCCURRENCES) {
      throw new GoondanError(
        'E_TOOL',
        `More than ${MAX_REPLACE_OCCURRENCES} occurrences of find under '${input.path}'; replace in smaller parts.`,
      );
    }
    let line = 1;
    let counted = 0;
    for (const offset of offsets) {
      for (let at = read.text.indexOf('\n', counted); at !== -1 && at < offset; at = read.text.indexOf('\n', at + 1))
        line += 1;
      counted = offset;
      const column = offset - read.text.lastIndexOf('\n', offset - 1);
      changes.push({ file: candidate.file, line, column, ...snippet(read.text, offset, find, replacement) });
    }
    planned.push({ ...candidate, hash: BigInt(Bun.hash(read.bytes)), offsets });
  }
  const skippedNote = skipped.length === 0 ? '' : ` (${skipped.length} skipped)`;
  return {
    changes,
    summary: `${changes.length} occurrence${changes.length === 1 ? '' : 's'} in ${planned.length} file${planned.length === 1 ? '' : 's'} of ${files.length} searched${skippedNote}`,
    apply: () =>
      withWorkdir(ctx.workdir, (opened) =>
        applyReplace({ workdir: opened, planned, find, replacement, searched: files.length, skipped }),
      ),
  };
}

/**
 * Writes each planned file in place (mode, owner and links kept), unless it changed since it was planned. Each is
 * opened again by the names it was found under, so a directory swapped for a link since makes it skipped.
 */
async function applyReplace(options: {
  workdir: Workdir;
  planned: PlannedFile[];
  find: string;
  replacement: string;
  searched: number;
  skipped: Skipped[];
}) {
  const { workdir, planned, find, replacement, searched } = options;
  const skipped = [...options.skipped];
  const changed: JsonObject[] = [];
  let total = 0;
  for (const file of planned) {
    confinementCheckpoint('replace-apply');
    const flags = constants.O_RDWR | constants.O_NONBLOCK;
    const handle = await openEntryStrict({ workdir, components: file.components, flags }).catch(() => undefined);
    if (!handle) {
      skipped.push({ file: file.file, reason: 'could not be opened for writing' });
      continue;
    }
    try {
      const read = await readText(handle);
      if ('skip' in read || BigInt(Bun.hash(read.bytes)) !== file.hash) {
        skipped.push({ file: file.file, reason: 'changed since it was searched; not written' });
        continue;
      }
      const bytes = Buffer.from(replaced(read.text, file.offsets, find, replacement), 'utf8');
      await handle.truncate(0);
      let written = 0;
      while (written < bytes.length)
        written += (await handle.write(bytes, written, bytes.length - written, written)).bytesWritten;
      changed.push({ file: file.file, replacements: file.offsets.length });
      total += file.offsets.length;
    } finally {
      await handle.close();
    }
  }
  return {
    replaced: total,
    files: changed,
    searched,
    skipped: skipped.slice(0, SKIPPED_SHOWN).map((entry) => ({ ...entry })),
    skippedCount: skipped.length,
  };
}

/** `file-system__replace`: a literal find-and-replace in a file or a directory tree, guarded (docs/guardrails.md). */
export const replace = withGuardrail(planReplace);
